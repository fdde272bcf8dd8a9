// The verdict lab's Google Benchmark suite (bench/verdict_lab.sh
// --harness): six cases from about 30 ns to about 100 us an iteration,
// built from this one source as an A/A pair (PLANT_PCT 0, compiled twice)
// and as a candidate whose BM_lookup does PLANT_PCT percent more of its
// own work: the dependent chain of table loads and multiplies of
// bench/verdict/cases.c's lookup, walked round(2000 * p / 100) steps
// further after the result is taken (real work, not a sleep; the result
// is the base's). Debian's libbenchmark-dev:
//   c++ -O2 -std=c++17 -DPLANT_PCT=10 gb_cases.cc -lbenchmark -lpthread
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#ifndef PLANT_PCT
#define PLANT_PCT 0
#endif

namespace {

constexpr std::uint64_t kLookupSteps = 2000;
constexpr std::uint64_t kPlantSteps = (kLookupSteps * PLANT_PCT + 50) / 100;

std::uint64_t xorshift(std::uint64_t &s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s * 0x2545F4914F6CDD1Du;
}

std::vector<std::uint8_t> bytes(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint8_t> v(n);
  for (auto &b : v)
    b = static_cast<std::uint8_t>(xorshift(seed) >> 56);
  return v;
}

std::uint64_t fnv(const std::uint8_t *a, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325u;
  for (std::size_t i = 0; i < n; i++)
    h = (h ^ a[i]) * 0x100000001b3u;
  return h;
}

// FNV-1a of 48 bytes: compute, tens of ns.
void BM_tiny(benchmark::State &state) {
  auto v = bytes(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) {
    const std::uint8_t *p = v.data();
    benchmark::DoNotOptimize(p);
    benchmark::DoNotOptimize(fnv(p, v.size()));
  }
}
BENCHMARK(BM_tiny)->Arg(48);

// 16 KiB copied: memory bandwidth, L1/L2.
void BM_memcpy(benchmark::State &state) {
  auto n = static_cast<std::size_t>(state.range(0));
  auto in = bytes(n, 2), out = bytes(n, 3);
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), n);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_memcpy)->Arg(16384);

// 64 keys sorted by insertion: branches and moves.
void BM_isort(benchmark::State &state) {
  auto n = static_cast<std::size_t>(state.range(0));
  std::vector<std::uint32_t> keys(n), work(n);
  std::uint64_t s = 4;
  for (auto &k : keys)
    k = static_cast<std::uint32_t>(xorshift(s));
  for (auto _ : state) {
    work = keys;
    for (std::size_t i = 1; i < n; i++) {
      std::uint32_t x = work[i];
      std::size_t j = i;
      for (; j > 0 && work[j - 1] > x; j--)
        work[j] = work[j - 1];
      work[j] = x;
    }
    benchmark::DoNotOptimize(work.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_isort)->Arg(64);

// 4 KiB of unpredictable branches.
void BM_branch(benchmark::State &state) {
  auto v = bytes(static_cast<std::size_t>(state.range(0)), 6);
  for (auto _ : state) {
    std::uint64_t c = 0;
    for (auto b : v)
      if (b & 1)
        c += b;
      else
        c ^= b;
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_branch)->Arg(4096);

// 512 KiB summed: streamed from L2/L3.
void BM_sum(benchmark::State &state) {
  auto n = static_cast<std::size_t>(state.range(0)) / 8;
  std::vector<std::uint64_t> v(n);
  std::uint64_t s = 7;
  for (auto &x : v)
    x = xorshift(s);
  for (auto _ : state) {
    std::uint64_t t = 0;
    for (auto x : v)
      t += x;
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_sum)->Arg(524288);

// The planted case: a dependent chain of table loads (a 16 KiB table,
// L1) and multiplies; the candidate's extra steps continue the chain
// after the result is taken.
std::uint64_t lookup_step(const std::uint32_t *t, std::uint64_t x,
                          std::uint64_t i) {
  return (x ^ t[x & 4095]) * 0x9E3779B97F4A7C15u + i;
}

void BM_lookup(benchmark::State &state) {
  std::vector<std::uint32_t> table(4096);
  std::uint64_t s = 5;
  for (auto &e : table)
    e = static_cast<std::uint32_t>(xorshift(s));
  for (auto _ : state) {
    const std::uint32_t *t = table.data();
    benchmark::DoNotOptimize(t);
    std::uint64_t x = 1;
    for (std::uint64_t k = 0; k < kLookupSteps; k++)
      x = lookup_step(t, x, k);
    benchmark::DoNotOptimize(x);
    std::uint64_t y = x;
    for (std::uint64_t k = 0; k < kPlantSteps; k++) {
      y = lookup_step(t, y, k);
      benchmark::DoNotOptimize(y);
    }
  }
}
BENCHMARK(BM_lookup)->Arg(static_cast<std::int64_t>(kLookupSteps));

} // namespace

BENCHMARK_MAIN();
