"""Length arithmetic for the FFT planner: radix decomposition, smooth lengths, four-step splits.

Pure Python (no device): the planner's decisions are testable on a CPU.
"""

import functools

#: Radices the Stockham kernel has butterflies for (``_kernels/rocfft/stockham.hip``).
RADICES = (2, 3, 4, 5, 7, 8, 11, 13, 16)
#: Primes a length may contain to be transformed by radix passes; any other prime factor sends
#: the length to Bluestein's algorithm.
SMOOTH_PRIMES = (2, 3, 5, 7, 11, 13)
#: Most passes one kernel runs (4 bits per radix in a 64-bit word).
MAX_PASSES = 16


def prime_factors(n):
    """Prime factors of ``n >= 1`` with multiplicity, ascending."""
    n = int(n)
    out = []
    p = 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1 if p == 2 else 2
    if n > 1:
        out.append(n)
    return out


def is_smooth(n):
    """True when every prime factor of ``n`` is a radix prime (2, 3, 5, 7, 11, 13)."""
    n = int(n)
    if n < 1:
        return False
    for p in SMOOTH_PRIMES:
        while n % p == 0:
            n //= p
    return n == 1


@functools.lru_cache(maxsize=4096)
def radix_passes(n):
    """The radices of one in-shared-memory transform of smooth length ``n`` (product == n).

    Powers of two go in passes of 16 with one 2, 4 or 8 for the remainder; odd primes are one pass
    each. Larger radices first: fewer passes, and the twiddle-free first pass is the big one.
    """
    n = int(n)
    if n < 1 or not is_smooth(n):
        raise ValueError(f"length {n} is not a product of the radices {SMOOTH_PRIMES}")
    twos = 0
    while n % 2 == 0:
        n //= 2
        twos += 1
    out = [16] * (twos // 4)
    if twos % 4:
        out.append(1 << (twos % 4))
    for p in (13, 11, 7, 5, 3):
        while n % p == 0:
            out.append(p)
            n //= p
    out.sort(reverse=True)
    return tuple(out)


def pack_radices(radices):
    """The radices as the kernel's 64-bit word: 4 bits of ``radix - 1`` per pass, first pass lowest."""
    if len(radices) > MAX_PASSES:
        raise ValueError(f"{len(radices)} passes exceed the kernel's {MAX_PASSES}")
    word = 0
    for i, r in enumerate(radices):
        if not 2 <= r <= 16:
            raise ValueError(f"radix {r} out of range")
        word |= (r - 1) << (4 * i)
    return word


@functools.lru_cache(maxsize=1024)
def bluestein_length(n):
    """Convolution length of Bluestein's algorithm for ``n``: the power of two ``>= 2n - 1``
    (powers of two take the fastest kernels; a 2^a 3^b 5^c length is at most 2x shorter)."""
    need = 2 * int(n) - 1
    return 1 << max(0, (need - 1).bit_length())


def smooth_divisors(n, limit):
    """Divisors ``d`` of ``n`` with ``1 < d <= limit``, ascending, built from the prime factors."""
    divisors = {1}
    for p in prime_factors(n):
        divisors |= {d * p for d in divisors if d * p <= limit}
    return sorted(d for d in divisors if d > 1)


def four_step_split(n, inner_limit):
    """Split a smooth ``n`` as ``inner * outer`` for the four-step FFT.

    ``inner`` (the length of the final pass, done in one kernel with several transforms per block)
    is the largest divisor of ``n`` not above ``inner_limit``; ``outer`` is transformed first,
    recursively. Raises ``ValueError`` if no divisor fits.
    """
    divisors = smooth_divisors(n, inner_limit)
    divisors = [d for d in divisors if d < n]
    if not divisors:
        raise ValueError(f"no four-step split of {n} with a pass of at most {inner_limit}")
    inner = divisors[-1]
    return inner, n // inner


def pass_count(n, limit):
    """Passes of a four-step plan of smooth ``n`` with passes of at most ``limit``."""
    count = 1
    while n > limit:
        inner, n = four_step_split(n, limit)
        count += 1
    return count
