/* benchsite: the engines that resample medians for the paired bootstrap
 * (bootstrap.h) and the A/A confidence (noise.h). Every engine gives the
 * same draws and bit-identical medians; they differ only in speed. */
#ifndef BENCHSITE_RESAMPLE_H
#define BENCHSITE_RESAMPLE_H

#ifdef __cplusplus
extern "C" {
#endif

/* AUTO picks the fastest the CPU supports. */
typedef enum bs_resample_engine {
  BS_RESAMPLE_ENGINE_AUTO = 0,
  BS_RESAMPLE_ENGINE_PORTABLE = 1, /* plain C */
  BS_RESAMPLE_ENGINE_AVX2 = 2,     /* x86-64 with AVX2 (GCC or Clang build) */
  BS_RESAMPLE_ENGINE_AVX512 = 3    /* x86-64 with AVX-512 F and DQ */
} bs_resample_engine;

#ifdef __cplusplus
}
#endif
#endif
