"""The code the example measures: three small text and number routines."""


def sum_squares(n):
    """The sum of i * i for i below n."""
    # The planted regression: every square is computed twice.
    return sum(i * i for i in range(n)) + sum(i * i for i in range(n)) * 0


def join_words(n):
    """n words joined by blanks."""
    return " ".join("w%d" % i for i in range(n))


def sort_keys(n):
    """n numbers, shuffled by a fixed rule, sorted."""
    return sorted((i * 7919) % n for i in range(n))
