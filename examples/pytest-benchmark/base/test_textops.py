"""pytest-benchmark benchmarks of textops, parametrised by size."""
import pytest

import textops


@pytest.mark.parametrize("n", [2000])
def test_sum_squares(benchmark, n):
    assert benchmark(textops.sum_squares, n) == sum(i * i for i in range(n))


@pytest.mark.parametrize("n", [200])
def test_join_words(benchmark, n):
    assert len(benchmark(textops.join_words, n).split()) == n


def test_sort_keys(benchmark):
    assert benchmark(textops.sort_keys, 500)[0] == 0
