"""Planner arithmetic of ``rocarray.rocfft._factor`` on the CPU (pure Python, no device).

Radix decompositions must multiply back to the length and use only radices the kernel has
butterflies for; the packed radix word must decode to the same passes; smoothness, prime factors,
Bluestein lengths, divisors and four-step splits are compared with brute-force definitions.
"""

import math

import pytest

from rocarray.rocfft import _factor

SMALL = range(1, 2049)
SMOOTH_LARGE = [2**20, 2**24, 3**13, 5**9, 7**7, 11**5, 13**5, 2**10 * 3**5 * 5**2 * 7 * 11 * 13,
                1000 * 1000, 4096 * 4096, 12**6]


def _is_prime(p):
    return p >= 2 and all(p % d for d in range(2, math.isqrt(p) + 1))


def _brute_smooth(n):
    return all(p in _factor.SMOOTH_PRIMES for p in _brute_factors(n))


def _brute_factors(n):
    out, d = [], 2
    while n > 1:
        while n % d == 0:
            out.append(d)
            n //= d
        d += 1
    return out


def _decode(word, passes):
    return tuple(((word >> (4 * i)) & 0xF) + 1 for i in range(passes))


# --------------------------------------------------------------------------------------------
# prime_factors / is_smooth
# --------------------------------------------------------------------------------------------

def test_prime_factors_match_trial_division():
    for n in SMALL:
        got = _factor.prime_factors(n)
        assert got == _brute_factors(n), n
        assert got == sorted(got)
        assert math.prod(got) == n
        assert all(_is_prime(p) for p in got)


@pytest.mark.parametrize("n, want", [(1, []), (2, [2]), (2**20, [2] * 20), (1000003, [1000003]),
                                     (999983 * 2, [2, 999983]), (97 * 97, [97, 97]),
                                     (2 * 3 * 5 * 7 * 11 * 13 * 17, [2, 3, 5, 7, 11, 13, 17])])
def test_prime_factors_known_values(n, want):
    assert _factor.prime_factors(n) == want


def test_is_smooth_matches_its_definition():
    for n in SMALL:
        assert _factor.is_smooth(n) == _brute_smooth(n), n
    for n in SMOOTH_LARGE:
        assert _factor.is_smooth(n)
    for n in (17, 19, 23, 1009, 4097, 65537, 1000003, 2**20 * 17, 13**4 * 29):
        assert not _factor.is_smooth(n)


def test_smooth_primes_are_the_radix_primes():
    primes = {p for r in _factor.RADICES for p in _factor.prime_factors(r)}
    assert primes == set(_factor.SMOOTH_PRIMES)


# --------------------------------------------------------------------------------------------
# radix_passes / pack_radices
# --------------------------------------------------------------------------------------------

def test_radix_passes_multiply_to_n_with_kernel_radices():
    for n in list(SMALL) + SMOOTH_LARGE:
        if not _brute_smooth(n):
            continue
        passes = _factor.radix_passes(n)
        assert math.prod(passes) == n, (n, passes)
        assert all(r in _factor.RADICES for r in passes), (n, passes)
        assert list(passes) == sorted(passes, reverse=True), (n, passes)
        assert len(passes) <= _factor.MAX_PASSES


def test_radix_passes_power_of_two_shape():
    """Powers of two: passes of 16, plus at most one 2, 4 or 8 for the remainder."""
    for e in range(0, 31):
        passes = _factor.radix_passes(2**e)
        assert passes.count(16) == e // 4
        rest = [r for r in passes if r != 16]
        assert rest == ([] if e % 4 == 0 else [2 ** (e % 4)])


def test_radix_passes_odd_primes_are_one_pass_each():
    n = 3**4 * 5**2 * 7 * 11 * 13 * 2**6
    passes = _factor.radix_passes(n)
    for p in (3, 5, 7, 11, 13):
        assert passes.count(p) == _factor.prime_factors(n).count(p)


@pytest.mark.parametrize("n, want", [(1, ()), (2, (2,)), (16, (16,)), (32, (16, 2)), (4096, (16, 16, 16)),
                                     (1000, (8, 5, 5, 5)), (13 * 11 * 64, (16, 13, 11, 4))])
def test_radix_passes_known_values(n, want):
    assert _factor.radix_passes(n) == want


@pytest.mark.parametrize("n", [0, -1, -16, 17, 2 * 17, 19 * 16, 1000003])
def test_radix_passes_rejects_non_smooth_and_non_positive(n):
    with pytest.raises(ValueError):
        _factor.radix_passes(n)


def test_pack_radices_round_trips():
    for n in list(range(1, 600)) + SMOOTH_LARGE:
        if not _brute_smooth(n):
            continue
        passes = _factor.radix_passes(n)
        word = _factor.pack_radices(passes)
        assert 0 <= word < 1 << 64
        assert _decode(word, len(passes)) == passes


def test_pack_radices_first_pass_in_lowest_bits():
    assert _factor.pack_radices(()) == 0
    assert _factor.pack_radices((16,)) == 0xF
    assert _factor.pack_radices((2, 16)) == 0x1 | (0xF << 4)
    assert _factor.pack_radices((5, 3, 2)) == 0x4 | (0x2 << 4) | (0x1 << 8)


def test_pack_radices_takes_the_most_passes():
    passes = (2,) * _factor.MAX_PASSES
    assert _decode(_factor.pack_radices(passes), len(passes)) == passes
    with pytest.raises(ValueError):
        _factor.pack_radices((2,) * (_factor.MAX_PASSES + 1))


@pytest.mark.parametrize("bad", [(1,), (0,), (17,), (16, 32), (-2,)])
def test_pack_radices_rejects_radices_out_of_range(bad):
    with pytest.raises(ValueError):
        _factor.pack_radices(bad)


# --------------------------------------------------------------------------------------------
# bluestein_length
# --------------------------------------------------------------------------------------------

def test_bluestein_length_is_the_smallest_power_of_two_that_holds_the_convolution():
    for n in list(SMALL) + [65537, 1000003, 2**20 + 1]:
        m = _factor.bluestein_length(n)
        assert m & (m - 1) == 0, (n, m)
        assert m >= 2 * n - 1, (n, m)
        assert m == 1 or m // 2 < 2 * n - 1, (n, m)
        assert _factor.is_smooth(m)


@pytest.mark.parametrize("n, m", [(1, 1), (2, 4), (3, 8), (17, 64), (1009, 2048), (1025, 4096), (1000003, 2**21)])
def test_bluestein_length_known_values(n, m):
    assert _factor.bluestein_length(n) == m


# --------------------------------------------------------------------------------------------
# smooth_divisors / four_step_split
# --------------------------------------------------------------------------------------------

def test_smooth_divisors_match_brute_force():
    for n in range(1, 400):
        for limit in (0, 1, 2, 7, 16, 100, 1000):
            want = [d for d in range(2, min(n, limit) + 1) if n % d == 0]
            assert _factor.smooth_divisors(n, limit) == want, (n, limit)


def test_smooth_divisors_of_large_lengths():
    n = 2**24
    assert _factor.smooth_divisors(n, 4096) == [2**e for e in range(1, 13)]
    for d in _factor.smooth_divisors(1000 * 1000, 5000):
        assert 1000 * 1000 % d == 0 and 1 < d <= 5000 and _factor.is_smooth(d)


@pytest.mark.parametrize("n", [2**13, 2**20, 2**24, 3**13, 1000 * 1000, 4096 * 4096, 12**6,
                               2**10 * 3**5 * 5**2 * 7 * 11 * 13, 10007 * 16])
@pytest.mark.parametrize("limit", [64, 1000, 4096, 7000])
def test_four_step_split_picks_the_largest_divisor_within_the_limit(n, limit):
    divisors = [d for d in _factor.smooth_divisors(n, limit) if d < n]
    if not divisors:
        with pytest.raises(ValueError):
            _factor.four_step_split(n, limit)
        return
    inner, outer = _factor.four_step_split(n, limit)
    assert inner * outer == n
    assert 1 < inner <= limit and inner < n and outer > 1
    assert inner == max(divisors)
    if _factor.is_smooth(n):
        assert _factor.is_smooth(inner) and _factor.is_smooth(outer)


def test_four_step_split_of_powers_of_two_keeps_powers_of_two():
    for e in range(2, 31):
        inner, outer = _factor.four_step_split(2**e, 4096)
        assert inner == min(4096, 2 ** (e - 1))
        assert outer == 2**e // inner


@pytest.mark.parametrize("n, limit", [(1, 4096), (2, 1), (17, 16), (1000003, 4096), (64, 1)])
def test_four_step_split_without_a_divisor_raises(n, limit):
    with pytest.raises(ValueError):
        _factor.four_step_split(n, limit)


@pytest.mark.parametrize("n, limit, passes", [(512, 512, 1), (1024, 512, 2), (1 << 18, 512, 2), (1 << 19, 512, 3),
                                              (1 << 24, 256, 3), (1 << 27, 512, 3), (3 ** 12, 729, 2)])
def test_pass_count(n, limit, passes):
    assert _factor.pass_count(n, limit) == passes
