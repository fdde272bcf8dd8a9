"""pytest-benchmark benchmarks of the verdict lab's six cases."""
import pytest

import cases


@pytest.mark.parametrize("n", [48])
def test_fnv(benchmark, n):
    b = cases.xorshift_bytes(n, 1)
    assert benchmark(cases.fnv, b) == cases.fnv(b)


@pytest.mark.parametrize("n", [256])
def test_sort(benchmark, n):
    keys = list(cases.xorshift_bytes(n, 4))
    assert benchmark(cases.sort_keys, keys) == sorted(keys)


@pytest.mark.parametrize("n", [1024])
def test_branch(benchmark, n):
    b = cases.xorshift_bytes(n, 6)
    assert benchmark(cases.branch, b) == cases.branch(b)


@pytest.mark.parametrize("n", [200])
def test_join(benchmark, n):
    assert len(benchmark(cases.join, n).split()) == n


@pytest.mark.parametrize("n", [4096])
def test_sum(benchmark, n):
    v = list(range(n))
    assert benchmark(sum, v) == n * (n - 1) // 2


@pytest.mark.parametrize("n", [cases.LOOKUP_STEPS])
def test_lookup(benchmark, n):
    t = cases.table()
    assert benchmark(cases.lookup, t) == cases.lookup(t)
