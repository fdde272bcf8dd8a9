// An example Google Benchmark program in two versions from one source, for
// `benchsite run --google-benchmark`: GB_VERSION 1 is the baseline,
// GB_VERSION 2 the head, whose BM_sum has a planted slowdown (four more
// passes through a volatile accumulator). BM_hash and BM_count are the same code
// in both.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#ifndef GB_VERSION
#define GB_VERSION 1
#endif

static std::vector<std::uint64_t> data(std::size_t n) {
  std::vector<std::uint64_t> v(n);
  std::uint64_t x = 0x9E3779B97F4A7C15u;
  for (auto &e : v) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    e = x * 0x2545F4914F6CDD1Du;
  }
  return v;
}

static void BM_sum(benchmark::State &state) {
  auto v = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::uint64_t t = 0;
    for (auto e : v)
      t += e;
#if GB_VERSION >= 2
    for (int check = 0; check < 4; check++) {
      volatile std::uint64_t u = 0;
      for (auto e : v)
        u += e;
      benchmark::DoNotOptimize(u);
    }
#endif
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_sum)->Arg(4096);

static void BM_hash(benchmark::State &state) {
  auto v = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    const unsigned char *b = reinterpret_cast<const unsigned char *>(v.data());
    std::uint64_t h = 0xcbf29ce484222325u;
    for (std::size_t i = 0; i < v.size() * sizeof v[0]; i++)
      h = (h ^ b[i]) * 0x100000001b3u;
    benchmark::DoNotOptimize(h);
  }
}
BENCHMARK(BM_hash)->Arg(1024);

static void BM_count(benchmark::State &state) {
  auto v = data(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::uint64_t c = 0;
    for (auto e : v)
      c += e > UINT64_MAX / 3;
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_count)->Arg(4096);

BENCHMARK_MAIN();
