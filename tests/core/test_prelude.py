"""The portability headers (``rocarray/_kernels/include/*.cuh``) on a real GPU, against NumPy.

The test-only source ``kernels/prelude_check.hip`` calls every helper of the headers. It is built
through the runtime path every library uses (``rocarray._core.compile.get_kernel``: headers pasted
in front, ``compile.options`` of the device's target, one module per registered template
instantiation and one for the ``extern "C"`` kernels) and each result is compared with NumPy: exactly wherever the arithmetic
is exact (integer data, data movement, conversions), with a tolerance only for transcendental and
fast-math wrappers. The same source is compiled for sm_90, gfx90a and gfx940 by the CPU compile
matrix (``test_compile_matrix.py``).

The reference for bf16 rounding is checked on the CPU too, against an independent rounding.
"""

import os
import re

import numpy as np
import pytest

from rocarray._core import backend
from rocarray._core import compile as ra_compile

from conftest import to_device, to_host

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_KERNEL = os.path.join(HERE, "kernels", "prelude_check.hip")


def instantiations_of(path):
    """The ``// instantiate: <name expression>`` lines of a test-only kernel source."""
    with open(path, encoding="utf-8") as f:
        return re.findall(r"^// instantiate: (.+?)\s*$", f.read(), re.M)


INSTANTIATIONS = instantiations_of(TEST_KERNEL)
ra_compile.register(TEST_KERNEL, INSTANTIATIONS)

CTYPES = {
    "int": np.int32, "ra_i64": np.int64, "float": np.float32, "double": np.float64,
    "ra_c64": np.complex64, "ra_c128": np.complex128,
}
REDUCE = {"ra_op_sum": np.sum, "ra_op_max": np.max, "ra_op_min": np.min}


def _instances(template):
    """Template arguments of the registered instantiations of ``template``, as lists of strings."""
    out = []
    for expr in INSTANTIATIONS:
        base, _, args = expr.partition("<")
        if base == template:
            out.append([a.strip() for a in args.rstrip(">").split(",")])
    return out


def _id(args):
    return "-".join(args)


@pytest.fixture(scope="module")
def warp():
    return backend.device_info().warp_size


def kernel(name):
    return ra_compile.get_kernel(TEST_KERNEL, name)


def integer_valued(rng, n, dtype, low=-50, high=50):
    """Random integer-valued data of any numeric dtype: sums of it are exact in every type."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.integers(low, high, n) + 1j * rng.integers(low, high, n)).astype(dtype)
    return rng.integers(low, high, n, endpoint=True).astype(dtype)


# --------------------------------------------------------------------------------------------
# bf16 reference (CPU)
# --------------------------------------------------------------------------------------------

def bf16_rne_bits(x):
    """float32 -> bf16 bits, round to nearest even (the manual rule; NaN handled by the caller)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_rne_bits_reference(x):
    """An independent round-to-nearest-even: pick the nearer of the two bf16 neighbours of each
    finite float32, ties to the even one, overflowing to infinity past max + half an ulp."""
    out = []
    for v in np.asarray(x, np.float32).ravel():
        bits = int(v.view(np.uint32))
        if np.isinf(v):
            out.append(bits >> 16)
            continue
        lo = bits >> 16                          # truncation toward zero (sign-magnitude)
        hi = lo + 1                              # next bf16 away from zero
        exact = float(v)
        lo_val = float(np.uint32(lo << 16).view(np.float32))
        if (hi & 0x7FFF) == 0x7F80:              # neighbour is infinity: the virtual value 2**128
            hi_val = float(np.copysign(2.0**128, exact))
        else:
            hi_val = float(np.uint32(hi << 16).view(np.float32))
        d_lo, d_hi = abs(exact - lo_val), abs(hi_val - exact)
        out.append(lo if d_lo < d_hi or (d_lo == d_hi and lo % 2 == 0) else hi)
    return np.array(out, np.uint16)


def conversion_inputs(rng):
    """Float32 values for the fp16/bf16 tests: no float32 subnormals and no results in the fp16
    subnormal range; signed zeros, infinities, NaNs, exact ties and overflow included."""
    magnitudes = np.exp(rng.uniform(np.log(2.0**-13), np.log(60000.0), 4000)).astype(np.float32)
    signs = rng.choice(np.array([-1.0, 1.0], np.float32), 4000)
    special = np.array([
        0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -2.5, 65504.0, 65519.0, 65520.0, 1e6, -1e9,
        1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 2.0**-14, 3.4028235e38, -3.4028235e38,
    ], np.float32)
    special_bits = np.array([
        0x3F808000, 0x3F818000, 0xBF808000, 0x3F808001, 0x3F7F8000, 0x7F7F7FFF, 0x7F7F8000,  # bf16 ties
        0x7FC00001, 0xFFA00000, 0x7F800001,                                                   # NaN payloads
    ], np.uint32).view(np.float32)
    return np.concatenate([special, special_bits, magnitudes * signs]).astype(np.float32)


def test_bf16_reference_rounding_is_round_to_nearest_even(rng):
    """CPU: the manual bf16 rule used as the GPU reference agrees with an independent rounding."""
    x = conversion_inputs(rng)
    finite_or_inf = ~np.isnan(x)
    np.testing.assert_array_equal(bf16_rne_bits(x[finite_or_inf]), bf16_rne_bits_reference(x[finite_or_inf]))


# --------------------------------------------------------------------------------------------
# warp and block reductions
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("args", _instances("ra_test_warp_reduce"), ids=_id)
def test_warp_reduce_exact_on_integer_data(args, warp, rng):
    ctype, op = args
    dtype = CTYPES[ctype]
    n, block = 16 * 64, 128
    x = integer_valued(rng, n, dtype)
    out = to_device(np.zeros(n, dtype))
    kernel(f"ra_test_warp_reduce<{ctype}, {op}>")((n // block,), (block,), (to_device(x), out))
    expected = np.repeat(REDUCE[op](x.reshape(-1, warp), axis=1), warp)
    np.testing.assert_array_equal(to_host(out), expected)


@pytest.mark.gpu
@pytest.mark.parametrize("ctype", ["float", "double", "ra_c64", "ra_c128"])
def test_warp_reduce_is_deterministic_and_identical_in_every_lane(ctype, warp, rng):
    dtype = CTYPES[ctype]
    n, block = 16 * 64, 128
    x = rng.standard_normal(n).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = (x + 1j * rng.standard_normal(n)).astype(dtype)
    k = kernel(f"ra_test_warp_reduce<{ctype}, ra_op_sum>")
    runs = []
    for _ in range(3):
        out = to_device(np.zeros(n, dtype))
        k((n // block,), (block,), (to_device(x), out))
        runs.append(to_host(out))
    for r in runs[1:]:
        np.testing.assert_array_equal(r.view(np.uint8), runs[0].view(np.uint8))  # bit for bit
    per_warp = runs[0].reshape(-1, warp)
    np.testing.assert_array_equal(per_warp.view(np.uint8),  # every lane holds the same bits
                                  np.repeat(per_warp[:, :1], warp, axis=1).view(np.uint8))
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(per_warp[:, 0], x.astype(wide).reshape(-1, warp).sum(axis=1),
                               rtol=0, atol=8 * eps * warp * np.max(np.abs(x)))


@pytest.mark.gpu
@pytest.mark.parametrize("args", _instances("ra_test_block_reduce"), ids=_id)
def test_block_reduce_exact_on_integer_data(args, rng):
    block, ctype, op = int(args[0]), args[1], args[2]
    dtype = CTYPES[ctype]
    blocks = 7
    x = integer_valued(rng, blocks * block, dtype)
    out = to_device(np.zeros(blocks, dtype))
    kernel(f"ra_test_block_reduce<{block}, {ctype}, {op}>")((blocks,), (block,), (to_device(x), out))
    np.testing.assert_array_equal(to_host(out), REDUCE[op](x.reshape(blocks, block), axis=1))


@pytest.mark.gpu
def test_block_reduce_is_deterministic_on_float_data(rng):
    block, blocks = 256, 64
    x = (rng.standard_normal(blocks * block) * 1e3).astype(np.float32)
    k = kernel("ra_test_block_reduce<256, float, ra_op_sum>")
    runs = []
    for _ in range(3):
        out = to_device(np.zeros(blocks, np.float32))
        k((blocks,), (block,), (to_device(x), out))
        runs.append(to_host(out))
    for r in runs[1:]:
        np.testing.assert_array_equal(r.view(np.uint32), runs[0].view(np.uint32))
    np.testing.assert_allclose(runs[0], x.astype(np.float64).reshape(blocks, block).sum(axis=1),
                               rtol=0, atol=block * 4e-7 * 1e3 * 4)


# --------------------------------------------------------------------------------------------
# ballot, lane/warp ids, 64-bit thread ids
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_ballot_mask_popcount_and_thread_ids(warp, rng):
    block, blocks = 256, 4
    n = block * blocks
    pred = rng.integers(0, 2, n).astype(np.int32)
    pred[:warp] = 0                  # an empty mask
    pred[warp:2 * warp] = 7          # every lane set, nonzero other than 1
    pred[2 * warp:3 * warp] = 0
    pred[3 * warp - 1] = 1           # only the highest lane
    masks = to_device(np.zeros(n // warp, np.uint64))
    popc = to_device(np.zeros(n, np.int32))
    ids = to_device(np.zeros(4 * n, np.int64))
    kernel("ra_test_ballot")((blocks,), (block,), (to_device(pred), masks, popc, ids))

    rows = (pred.reshape(-1, warp) != 0)
    expected = np.array([sum(1 << lane for lane in range(warp) if row[lane]) for row in rows], np.uint64)
    np.testing.assert_array_equal(to_host(masks), expected)
    assert int(to_host(masks)[1]) == (1 << warp) - 1
    assert to_host(masks)[2] == 1 << (warp - 1)
    np.testing.assert_array_equal(to_host(popc), np.repeat(rows.sum(axis=1), warp))
    t = np.arange(n)
    ids = to_host(ids).reshape(n, 4)
    np.testing.assert_array_equal(ids[:, 0], t)
    np.testing.assert_array_equal(ids[:, 1], t % warp)
    np.testing.assert_array_equal(ids[:, 2], (t % block) // warp)
    np.testing.assert_array_equal(ids[:, 3], np.full(n, n))


# --------------------------------------------------------------------------------------------
# shuffles
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("args", _instances("ra_test_shuffles"), ids=_id)
def test_shuffles_move_the_right_lanes(args, warp, rng):
    ctype = args[0]
    dtype = np.dtype(CTYPES[ctype])
    n, block, xor_mask, delta = 8 * 64, 128, 5, 3
    if dtype.kind == "c":
        x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    elif dtype.kind == "f":
        x = rng.standard_normal(n).astype(dtype)
    else:
        x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, n, dtype=dtype, endpoint=True)
    outs = [to_device(np.zeros(n, dtype)) for _ in range(4)]
    kernel(f"ra_test_shuffles<{ctype}>")((n // block,), (block,),
                                         (to_device(x), *outs, np.int32(xor_mask), np.int32(delta)))
    lane = np.arange(warp)
    rows = x.reshape(-1, warp)
    expected = [
        rows[:, (5 * lane + 3) % warp],
        rows[:, lane ^ xor_mask],
        rows[:, np.where(lane + delta < warp, lane + delta, lane)],
        rows[:, np.where(lane >= delta, lane - delta, lane)],
    ]
    for name, got, want in zip(("ra_shfl", "ra_shfl_xor", "ra_shfl_down", "ra_shfl_up"), outs, expected):
        np.testing.assert_array_equal(to_host(got), want.ravel(), err_msg=f"{name} on {ctype}")


# --------------------------------------------------------------------------------------------
# fp16 / bf16 conversions, traits, complex arithmetic
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_half_and_bfloat16_conversions_round_to_nearest_even(rng):
    x = conversion_inputs(rng)
    n = x.size
    h, hb = to_device(np.zeros(n, np.uint16)), to_device(np.zeros(n, np.float32))
    b, bb = to_device(np.zeros(n, np.uint16)), to_device(np.zeros(n, np.float32))
    kernel("ra_test_half_bf16")((32,), (128,), (to_device(x), h, hb, b, bb, np.int64(n)))
    h, hb, b, bb = (to_host(a) for a in (h, hb, b, bb))
    nan = np.isnan(x)

    with np.errstate(over="ignore"):
        want_h = x.astype(np.float16)
    np.testing.assert_array_equal(h[~nan], want_h[~nan].view(np.uint16))
    np.testing.assert_array_equal(hb[~nan].view(np.uint32), want_h[~nan].astype(np.float32).view(np.uint32))
    assert np.isnan(h[nan].view(np.float16)).all() and np.isnan(hb[nan]).all()

    want_b = bf16_rne_bits(x)
    np.testing.assert_array_equal(b[~nan], want_b[~nan])
    np.testing.assert_array_equal(bb[~nan].view(np.uint32), want_b[~nan].astype(np.uint32) << 16)
    assert ((b[nan] & 0x7F80) == 0x7F80).all() and ((b[nan] & 0x7F) != 0).all(), "bf16 NaN must stay NaN"
    assert np.isnan(bb[nan]).all()
    np.testing.assert_array_equal(b[nan] & 0x8000, (x[nan].view(np.uint32) >> 16).astype(np.uint16) & 0x8000)

    rn = to_device(np.zeros(n, np.uint16))
    kernel("ra_test_bf16_rn")((32,), (128,), (to_device(x), rn, np.int64(n)))
    rn = to_host(rn)
    np.testing.assert_array_equal(rn[~nan], want_b[~nan])
    assert ((rn[nan] & 0x7F80) == 0x7F80).all() and ((rn[nan] & 0x7F) != 0).all(), "bf16 NaN must stay NaN"


@pytest.mark.gpu
@pytest.mark.parametrize("ctype", ["float", "ra_half", "ra_bfloat16", "ra_c64"])
def test_traits_accumulate_in_the_wide_type(ctype, rng):
    n = 3000
    z = rng.standard_normal(n)
    base = (np.sign(z) * (np.abs(z) * 100 + 1)).astype(np.float32)  # |base| >= 1: no fp16 subnormals
    if ctype == "float":
        x, want = base, base * 2
    elif ctype == "ra_half":
        x = base.astype(np.float16).view(np.uint16)
        want = (base.astype(np.float16).astype(np.float32) * 2).astype(np.float16).view(np.uint16)
    elif ctype == "ra_bfloat16":
        x = bf16_rne_bits(base)
        want = bf16_rne_bits((x.astype(np.uint32) << 16).view(np.float32) * 2)
    else:
        x = (base + 1j * rng.standard_normal(n).astype(np.float32)).astype(np.complex64)
        want = x * 2
    out = to_device(np.zeros_like(x))
    kernel(f"ra_test_traits_roundtrip<{ctype}>")((8,), (128,), (to_device(x), out, np.int64(n)))
    np.testing.assert_array_equal(to_host(out), want)


@pytest.mark.gpu
@pytest.mark.parametrize("rtype", ["float", "double"])
def test_complex_arithmetic_matches_numpy(rtype, rng):
    real = np.float32 if rtype == "float" else np.float64
    cplx = np.complex64 if rtype == "float" else np.complex128
    n = 5000

    def run(a, b, s):
        outs = [to_device(np.zeros(n, cplx)) for _ in range(5)] + [to_device(np.zeros(n, real))]
        kernel(f"ra_test_complex<{rtype}>")((16,), (128,), (to_device(a), to_device(b), real(s), *outs, np.int64(n)))
        return [to_host(o) for o in outs]

    # Integer-valued data: every product and sum is exact, so the results are equal bit for bit.
    a, b = integer_valued(rng, n, cplx, -1000, 1000), integer_valued(rng, n, cplx, -1000, 1000)
    mul, add, sub, conj, scaled, abs1 = run(a, b, 3.0)
    np.testing.assert_array_equal(mul, a * b)
    np.testing.assert_array_equal(add, a + b)
    np.testing.assert_array_equal(sub, a - b)
    np.testing.assert_array_equal(conj, np.conj(a))
    np.testing.assert_array_equal(scaled, real(3.0) * a)
    np.testing.assert_array_equal(abs1, np.abs(a.real) + np.abs(a.imag))

    # Random data: the multiply may contract to FMA, so compare with a few ulps of tolerance.
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(cplx)
    b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(cplx)
    mul = run(a, b, 0.5)[0]
    ref = a.astype(np.complex128) * b.astype(np.complex128)
    eps = np.finfo(real).eps
    scale = np.abs(a) * np.abs(b)
    assert (np.abs(mul - ref) <= 4 * eps * scale + np.finfo(real).tiny).all()


# --------------------------------------------------------------------------------------------
# math helpers, strided offsets, atomics
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_math_helpers_match_numpy(rng):
    n = 4096
    xf = (rng.standard_normal(n) * 10).astype(np.float32)
    yf = (rng.standard_normal(n) * 10).astype(np.float32)
    xd = rng.standard_normal(n) * 1e3
    yd = rng.standard_normal(n) * 1e3
    xf[0], xd[1] = np.nan, np.nan
    outf, outd = to_device(np.zeros(11 * n, np.float32)), to_device(np.zeros(7 * n, np.float64))
    flags = to_device(np.zeros(2 * n, np.int32))
    kernel("ra_test_math")((16,), (128,), tuple(to_device(a) for a in (xf, yf, xd, yd)) + (outf, outd, flags, np.int64(n)))
    of, od, flags = to_host(outf).reshape(n, 11), to_host(outd).reshape(n, 7), to_host(flags).reshape(n, 2)

    def close(got, want, rtol, atol=0.0):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)

    x64, y64 = xf.astype(np.float64), yf.astype(np.float64)
    np.testing.assert_array_equal(of[:, 0], np.abs(xf))
    close(of[:, 1], np.sqrt(np.abs(x64)), 1e-6)
    close(of[:, 2], x64 * y64 + 1.0, 1e-6, 1e-6)
    np.testing.assert_array_equal(of[:, 3], np.where(yf < xf, yf, xf))  # NaN in x stays, NaN in y ignored
    np.testing.assert_array_equal(of[:, 4], np.where(xf < yf, yf, xf))
    np.testing.assert_array_equal(of[:, 5], np.abs(xf))
    close(of[:, 6], 1.0 / np.sqrt(np.abs(x64) + 1.0), 1e-5)
    close(of[:, 7], np.exp(x64 / 8.0), 1e-5)
    close(of[:, 8], np.log(np.abs(x64) + 1.0), 1e-5, 1e-6)
    close(of[:, 9], x64 / (np.abs(y64) + 1.0), 1e-5)
    close(of[:, 10], np.maximum(np.abs(xf), np.abs(yf)), 0)
    np.testing.assert_array_equal(od[:, 0], np.abs(xd))
    close(od[:, 1], np.sqrt(np.abs(xd)), 1e-15)
    # fma rounds once; NumPy's x*y+1 twice: they differ by at most an ulp of x*y and of the result.
    bound = 4e-16 * (np.abs(xd * yd) + 1.0)
    ok = ~np.isnan(xd)
    assert (np.abs(od[ok, 2] - (xd * yd + 1.0)[ok]) <= bound[ok]).all() and np.isnan(od[~ok, 2]).all()
    np.testing.assert_array_equal(od[:, 3], np.where(yd < xd, yd, xd))
    np.testing.assert_array_equal(od[:, 4], np.where(xd < yd, yd, xd))
    np.testing.assert_array_equal(od[:, 5], np.abs(xd))
    np.testing.assert_array_equal(od[ok, 6], np.minimum(xd[ok].astype(np.int64), yd[ok].astype(np.int64)))
    np.testing.assert_array_equal(flags[:, 0], np.isnan(xf))
    np.testing.assert_array_equal(flags[:, 1], np.isnan(xd))


@pytest.mark.gpu
@pytest.mark.parametrize("inc", [1, 3, 0, -1, -2, -(2**20)])
def test_strided_offset_walks_negative_increments_from_the_far_end(inc):
    n = 2**34  # offsets past 2**31: 64-bit arithmetic
    idx = np.array([0, 1, 2, 1000, 2**31 + 5, 2**33, n - 2, n - 1], np.int64)
    out = to_device(np.zeros(idx.size, np.int64))
    kernel("ra_test_strided_offset")((1,), (64,), (to_device(idx), np.int64(n), np.int64(inc), out, np.int64(idx.size)))
    # Reference BLAS: element i of x with a negative incx sits at x[(n - 1 - i) * |incx|].
    want = [i * inc if inc >= 0 else (n - 1 - i) * -inc for i in idx.tolist()]
    np.testing.assert_array_equal(to_host(out), np.array(want, np.int64))


@pytest.mark.gpu
def test_atomics_count_sum_and_compare_and_swap(rng):
    n, block = 4000, 256                       # the last block is partly idle
    v = rng.integers(0, 100, n, endpoint=True).astype(np.int32)
    counters = to_device(np.zeros(3, np.uint32))
    sum64 = to_device(np.zeros(1, np.uint64))
    sum_i32 = to_device(np.zeros(1, np.int32))
    tickets = to_device(np.zeros(n, np.uint32))
    grid = (n + block - 1) // block
    kernel("ra_test_atomics")((grid,), (block,), (to_device(v), counters, sum64, sum_i32, tickets, np.int64(n)))
    total = int(v.astype(np.int64).sum())
    np.testing.assert_array_equal(to_host(counters), np.array([n, total, n], np.uint32))
    assert int(to_host(sum64)[0]) == (total << 32) + total
    assert int(to_host(sum_i32)[0]) == int((v.astype(np.int64) - 50).sum())
    np.testing.assert_array_equal(np.sort(to_host(tickets)), np.arange(n, dtype=np.uint32))


@pytest.mark.gpu
def test_the_test_kernel_went_through_the_runtime_compile_path():
    info = backend.device_info()
    kernel("ra_test_ballot")
    assert (TEST_KERNEL, info.id) in ra_compile.compiled_modules()
    assert f"-DRA_WARP_SIZE={info.warp_size}" in ra_compile.options(info.target)
