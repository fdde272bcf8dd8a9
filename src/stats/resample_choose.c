/* Which path draws a bootstrap's resamples: the small-sample one, the
 * median band or the chains every other falls back to (all three give
 * the same ranks; they differ in time). Apart from the paths themselves
 * (resample.c, resample_band.c), so that calls run one way: here ->
 * resample_band.c -> resample.c. */
#include "resample_int.h"

#include <stdint.h>
#include <stdlib.h>

bs_status bs__resample_medians(const bs__series *s, bs_resample_engine engine,
                               uint64_t state, size_t R, size_t width,
                               uint32_t *jl, uint32_t *jh) {
#if BS__HAVE_SIMD
  if (width == 0 && R <= UINT32_MAX && bs__resample_small(s, engine)) {
    bs__resample_medians_small(s, state, R, jl, jh, NULL);
    return BS_OK;
  }
  if (engine == BS_RESAMPLE_ENGINE_AVX512 && s->L == 0 &&
      s->n <= BS__BAND_MAX_N && width != BS__WIDTH_PLAIN &&
      (width || s->n >= BS__BAND_MIN_N))
    return bs__resample_band(s, state, R, width, jl, jh);
#else
  (void)width;
#endif
  return bs__resample_medians_chains(s, engine, state, R, jl, jh);
}

bs_status bs__resample_pair_hist(const bs__series *s, bs_resample_engine engine,
                                 uint64_t state, size_t R, uint32_t *hist) {
#if BS__HAVE_SIMD
  if (R <= UINT32_MAX && bs__resample_small(s, engine)) {
    bs__resample_medians_small(s, state, R, NULL, NULL, hist);
    return BS_OK;
  }
#endif
  uint32_t *jl = malloc(R * sizeof *jl), *jh = malloc(R * sizeof *jh);
  bs_status st = BS_ENOMEM;
  if (jl && jh && !(st = bs__resample_medians(s, engine, state, R, 0, jl, jh)))
    for (size_t r = 0; r < R; r++)
      hist[(size_t)jl[r] * s->n + jh[r]]++;
  free(jl);
  free(jh);
  return st;
}
