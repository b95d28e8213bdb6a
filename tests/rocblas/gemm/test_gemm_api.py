"""rocblas.gemm (``_gemm/api.py``) against NumPy references (float64/complex128) and the reference BLAS rules.

GPU tests (``@pytest.mark.gpu``) store A, B and C column-major in 1-D device buffers (leading
dimensions at or above the minimum, a few spare elements at the end), run one gemm, and compare the
whole C buffer with a host twin: the m x n elements to a tolerance scaled by
``|alpha| |op(A)| |op(B)| + |beta| |C|`` and k, every other element exactly (writes out of place
show up); A and B must be unchanged. beta == 0 runs on a NaN-poisoned C. CPU tests cover every
argument error and the warm path, on fake device arrays never launched on.
"""

import itertools

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide
from level3_host import (GEMM_DTYPES as ALL, SameDevice, activation_reference, run_gemm, run_gemm_bias_activation,
                         scalar as _scalar)

from rocblas_fixtures import fresh_prepared_launches, refuse_launches  # noqa: F401  (autouse)

from rocarray._core import launch as _launch, plans
import rocarray.rocblas as rocblas
from rocarray.rocblas._gemm import half as _half, mma as _mma, plan as _plan, simt as _simt

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")


needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")


TRANS = [a + b for a, b in itertools.product("NTC", "NTC")]


def _ids(v):
    return str(v)


# (m, n, k, (lda, ldb, ldc) above the minimum): 1x1, sizes crossing the 64-tile and the k-tile
# (16 real, 8 complex) boundaries, a non-square shape with every leading dimension padded
GEMM_SHAPES = [(1, 1, 1, (0, 0, 0)), (7, 7, 7, (0, 0, 0)), (63, 64, 65, (0, 1, 0)),
               (100, 37, 129, (3, 5, 2))]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", GEMM_SHAPES, ids=_ids)
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_matches_numpy(rng, dtype, trans, shape):
    m, n, k, extra = shape
    run_gemm(rng, dtype, trans, m, n, k, extra)


@pytest.mark.gpu
@pytest.mark.parametrize("size", [63, 64, 65])
@pytest.mark.parametrize("trans", ["NN", "TC"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_square_tile_boundaries(rng, dtype, trans, size):
    run_gemm(rng, dtype, trans, size, size, size)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TC", "CT"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_beta_zero_does_not_read_c(rng, dtype, trans):
    run_gemm(rng, dtype, trans, 65, 33, 20, (1, 0, 3), beta=0, poison=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_alpha_zero_and_k_zero_scale_c(rng, dtype):
    beta = _scalar(dtype, 2.0, -1.0)
    run_gemm(rng, dtype, "NT", 65, 33, 20, alpha=0, beta=beta)          # A, B not read
    run_gemm(rng, dtype, "NT", 65, 33, 20, alpha=0, beta=0, poison=True)  # zero fill
    run_gemm(rng, dtype, "CN", 65, 33, 0, beta=beta)                    # k == 0
    run_gemm(rng, dtype, "CN", 65, 33, 0, beta=0, poison=True)
    run_gemm(rng, dtype, "NN", 65, 33, 20, alpha=0, beta=1, poison=True)  # no-op: C untouched
    run_gemm(rng, dtype, "NN", 0, 33, 20)
    run_gemm(rng, dtype, "TN", 33, 0, 20)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TC"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_1000_cubed(rng, dtype, trans):
    run_gemm(rng, dtype, trans, 1000, 1000, 1000, (0, 0, 0))


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "CT"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_tall_non_square(rng, dtype, trans):
    run_gemm(rng, dtype, trans, 4097, 64, 129, (1, 0, 5))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_fortran_arrays(rng, dtype):
    a = random_array(rng, (70, 30), dtype)
    b = random_array(rng, (30, 50), dtype)
    c = np.asfortranarray(random_array(rng, (70, 50), dtype))
    dc = cupy.asfortranarray(to_device(c))
    rocblas.gemm("N", "N", 70, 50, 30, 1.0, cupy.asfortranarray(to_device(a)), 70,
                 cupy.asfortranarray(to_device(b)), 30, 1.0, dc, 70)
    want = wide(a) @ wide(b) + wide(c)
    scale = float(np.max(np.abs(wide(a)) @ np.abs(wide(b)) + np.abs(wide(c))))
    assert_close(to_host(dc), want, dtype, 30, atol_scale=scale)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(127, 129, 9), (128, 128, 8), (129, 257, 31), (257, 130, 250)], ids=_ids)
@pytest.mark.parametrize("trans", ["NN", "TN", "NT", "CC"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_large_tile_boundaries(rng, dtype, trans, shape):
    # 128 x 128 (float32) and 128 x 64 (float64) tiles, k tiles of 8 and 16
    m, n, k = shape
    run_gemm(rng, dtype, trans, m, n, k, (1, 2, 3))


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TC"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_split_k(rng, dtype, trans):
    # few tiles and a long k: split-K parts, finished in order by the finish kernel
    m, n, k = 70, 65, 5000
    assert _plan.heuristic(dtype, m, n, k, 132)[1] > 1
    run_gemm(rng, dtype, trans, m, n, k, (0, 1, 2))
    run_gemm(rng, dtype, trans, m, n, k, beta=0, poison=True)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(64, 8192, 8192), (256, 256, 65536)], ids=_ids)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemm_awkward_shapes(rng, dtype, shape):
    m, n, k = shape
    run_gemm(rng, dtype, "NN", m, n, k)


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_4097_cubed(rng, dtype):
    run_gemm(rng, dtype, "NT", 4097, 4097, 4097)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gemm_split_k_is_deterministic(rng, dtype):
    m, n, k = 40, 40, 8000
    a, b = to_device(random_array(rng, m * k, dtype)), to_device(random_array(rng, k * n, dtype))
    outs = []
    for _ in range(3):
        c = cupy.full(m * n, np.nan, dtype)
        rocblas.gemm("N", "N", m, n, k, 1.0, a, m, b, k, 0.0, c, m)
        outs.append(to_host(c).tobytes())
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.gpu
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "silu", "sigmoid", "tanh"])
@pytest.mark.parametrize("shape", [(70, 33, 45), (300, 70, 5000)], ids=_ids)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemm_fused_bias_andactivation_reference(rng, dtype, shape, activation):
    m, n, k = shape  # the second shape splits k: the epilogue runs in the finish kernel
    run_gemm_bias_activation(rng, dtype, m, n, k, activation)


HALF_DTYPES = ["float16"] + (["bfloat16"] if _mma.bfloat16_dtype() is not None else [])


@pytest.mark.gpu
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "silu", "sigmoid", "tanh"])
@pytest.mark.parametrize("shape", [(70, 33, 45), (256, 136, 4000), (512, 264, 320), (2048, 2312, 72), (40, 24, 0)],
                         ids=_ids)
@pytest.mark.parametrize("dtype", HALF_DTYPES)
def test_gemm_fused_bias_and_activation_16_bit(rng, dtype, shape, activation):
    # (70, 33, 45): the mma kernel (odd leading dimensions); on sm_90 (256, 136, 4000) takes the
    # wgmma kernel with split k (the epilogue runs in the finish kernel), (512, 264, 320) the
    # wgmma kernel's own epilogue on 128 x 128 tiles and (2048, 2312, 72) on 128 x 256 tiles, the
    # last one partly outside C; k = 0 with beta = 1: C := act(C + bias)
    m, n, k = shape
    dt = np.dtype(np.float16) if dtype == "float16" else _mma.bfloat16_dtype()
    a, b = rng.standard_normal(m * k).astype(dt), rng.standard_normal(k * n).astype(dt)
    c, bias = rng.standard_normal(m * n).astype(dt), rng.standard_normal(m).astype(dt)
    alpha, beta = (0.5, -1.0) if k else (1.0, 1.0)
    dc = to_device(c)
    rocblas.gemm("N", "N", m, n, k, alpha, to_device(a), max(m, 1), to_device(b), max(k, 1), beta, dc, m,
                 bias=to_device(bias), activation=activation)
    am, bm, cm = wide(a).reshape(k, m).T, wide(b).reshape(n, k).T, wide(c).reshape(n, m).T
    pre = alpha * am @ bm + beta * cm + wide(bias)[:, None]
    scale = abs(alpha) * np.abs(am) @ np.abs(bm) + np.abs(cm) + np.abs(wide(bias))[:, None]
    want = activation_reference(activation, pre)
    got = wide(to_host(dc)).reshape(n, m).T
    # one rounding to the 16-bit output, float32 sums over k terms, activations of slope <= 1.13
    eps = 2.0**-8 if dtype == "bfloat16" else 2.0**-11
    tol = 1.01 * eps * np.abs(want) + 1.2 * (k + 8) * 2.0**-23 * scale + 1e-6
    bad = ~(np.abs(got - want) <= tol)
    assert not bad.any(), f"{bad.sum()} of {m * n} off; max error {np.max(np.abs(got - want)):.3g}"


@pytest.mark.gpu
def test_gemm_bias_with_complex_data_and_k_zero(rng):
    m, n = 9, 4
    c, bias = random_array(rng, m * n, "complex64"), random_array(rng, m, "complex64")
    dc = to_device(c)
    a = to_device(random_array(rng, m, "complex64"))
    rocblas.gemm("N", "N", m, n, 0, 1.0, a, m, a, 1, 1.0, dc, m, bias=to_device(bias))  # beta 1, k 0
    assert_close(to_host(dc), (wide(c).reshape(n, m) + wide(bias)[None, :]).ravel(), "complex64", 1)


@pytest.fixture
def no_launch(monkeypatch):
    """Fail (instead of launching on fake memory) if anything reaches a kernel or the device."""

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(_plan, "launch", refuse)
    monkeypatch.setattr(_plan, "prepare_launch", refuse)
    refuse_launches(monkeypatch)


@needs_cupy
def test_argument_errors_raise_before_the_device(no_launch):
    A = fake((100,), np.float32)
    B = fake((100,), np.float32, address=1 << 21)
    C = fake((100,), np.float32, address=1 << 22)
    gemm = rocblas.gemm
    with pytest.raises(ValueError, match="transA must be one of 'N', 'T', 'C'"):
        gemm("X", "N", 10, 10, 10, 1.0, A, 10, B, 10, 0.0, C, 10)
    with pytest.raises(ValueError, match="transB must be one of"):
        gemm("N", "H", 10, 10, 10, 1.0, A, 10, B, 10, 0.0, C, 10)
    with pytest.raises(ValueError, match="m must be >= 0"):
        gemm("N", "N", -1, 10, 10, 1.0, A, 10, B, 10, 0.0, C, 10)
    with pytest.raises(ValueError, match="n must be >= 0"):
        gemm("N", "N", 10, -1, 10, 1.0, A, 10, B, 10, 0.0, C, 10)
    with pytest.raises(ValueError, match="k must be >= 0"):
        gemm("N", "N", 10, 10, -3, 1.0, A, 10, B, 10, 0.0, C, 10)
    # leading dimensions: rows of each matrix as stored
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 10\)"):
        gemm("N", "N", 10, 5, 4, 1.0, A, 9, B, 4, 0.0, C, 10)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 4\)"):
        gemm("T", "N", 10, 5, 4, 1.0, A, 3, B, 4, 0.0, C, 10)
    assert_launches(lambda: gemm("T", "N", 10, 5, 4, 1.0, A, 4, B, 4, 0.0, C, 10))
    with pytest.raises(ValueError, match=r"ldb must be >= max\(1, 4\)"):
        gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 3, 0.0, C, 10)
    with pytest.raises(ValueError, match=r"ldb must be >= max\(1, 5\)"):
        gemm("N", "C", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    with pytest.raises(ValueError, match=r"ldc must be >= max\(1, 10\)"):
        gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 9)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 0\)"):
        gemm("N", "N", 0, 5, 4, 1.0, A, 0, B, 4, 0.0, C, 1)
    # buffers too short (A: 10 x 11 needs 110 elements)
    with pytest.raises(ValueError, match="needs 110 elements of A"):
        gemm("N", "N", 10, 5, 11, 1.0, A, 10, B, 11, 0.0, C, 10)
    with pytest.raises(ValueError, match="needs 110 elements of B"):
        gemm("N", "T", 10, 11, 10, 1.0, A, 10, B, 11, 0.0, C, 10)
    with pytest.raises(ValueError, match="needs 110 elements of C"):
        gemm("N", "N", 10, 11, 5, 1.0, A, 10, B, 5, 0.0, C, 10)
    # types
    with pytest.raises(TypeError, match="A is a host"):
        gemm("N", "N", 3, 3, 3, 1.0, np.ones(9, np.float32), 3, B, 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="C is a host"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3, 0.0, np.ones(9, np.float32), 3)
    with pytest.raises(TypeError, match="B must be a cupy.ndarray"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, [1.0] * 9, 3, 0.0, C, 3)
    half = np.dtype("float16")  # runs on the matrix units; a bias of another dtype is refused
    with pytest.raises(TypeError, match="bias"):
        gemm("N", "N", 3, 3, 3, 1.0, fake((9,), half), 3, fake((9,), half, address=1 << 21), 3, 0.0,
             fake((9,), half, address=1 << 22), 3, bias=fake((3,), np.float32, address=1 << 23))
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        gemm("N", "N", 3, 3, 3, 1.0, fake((9,), np.int32), 3, fake((9,), np.int32, address=1 << 21), 3,
             0.0, fake((9,), np.int32, address=1 << 22), 3)
    with pytest.raises(TypeError, match=r"B must have the dtype of A \(float32\), got float64"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, fake((9,), np.float64, address=1 << 21), 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="C must have the dtype of A"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3, 0.0, fake((9,), np.complex64, address=1 << 22), 3)
    with pytest.raises(TypeError, match="complex alpha"):
        gemm("N", "N", 3, 3, 3, 1j, A, 3, B, 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="complex beta"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3, 1j, C, 3)
    with pytest.raises(TypeError, match="integer"):
        gemm("N", "N", 3.0, 3, 3, 1.0, A, 3, B, 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="integer"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3.5, 0.0, C, 3)
    # layout and alignment
    with pytest.raises(ValueError, match="A must be a contiguous"):
        gemm("N", "N", 3, 3, 3, 1.0, A[::2], 3, B, 3, 0.0, C, 3)
    with pytest.raises(ValueError, match="C must be a contiguous"):
        gemm("N", "N", 3, 3, 3, 1.0, A, 3, B, 3, 0.0, fake((10, 10), np.float32, address=1 << 22), 10)
    with pytest.raises(ValueError, match="B is not aligned"):
        c128 = np.complex128
        gemm("N", "N", 2, 2, 2, 1.0, fake((20,), c128), 2, fake((20,), c128, address=(1 << 21) + 8), 2, 0.0,
             fake((20,), c128, address=1 << 22), 2)


def assert_launches(call):
    """The checks pass and the call reaches the (refused) launch."""
    with pytest.raises(AssertionError, match="kernel launch"):
        call()


@needs_cupy
def test_complex_scalars_with_complex_data_and_fortran_arrays_pass_the_checks(no_launch):
    a = fake((10, 10), np.complex64, order="F")
    b = fake((10, 10), np.complex64, order="F", address=1 << 21)
    c = fake((10, 10), np.complex64, order="F", address=1 << 22)
    assert_launches(lambda: rocblas.gemm("c", "t", 10, 10, 10, 1 + 2j, a, 10, b, 10, 0.5j, c, 10))


@needs_cupy
def test_noops_never_reach_the_device(no_launch):
    A = fake((100,), np.float32)
    B = fake((100,), np.float32, address=1 << 21)
    C = fake((100,), np.float32, address=1 << 22)
    assert rocblas.gemm("N", "N", 0, 10, 10, 1.0, A, 1, B, 10, 0.0, C, 1) is None
    assert rocblas.gemm("N", "N", 10, 0, 10, 1.0, A, 10, B, 10, 0.0, C, 10) is None
    assert rocblas.gemm("N", "N", 10, 10, 10, 0.0, A, 10, B, 10, 1.0, C, 10) is None  # alpha 0, beta 1
    assert rocblas.gemm("T", "C", 10, 10, 0, 2.0, A, 1, B, 10, 1.0, C, 10) is None    # k 0, beta 1
    # k == 0 or alpha == 0 with beta != 1 still scales C
    assert_launches(lambda: rocblas.gemm("N", "N", 10, 10, 0, 1.0, A, 10, B, 1, 0.0, C, 10))
    # even a no-op rejects a buffer that is too short once the sizes are positive
    with pytest.raises(ValueError, match="needs 110 elements"):
        rocblas.gemm("N", "N", 10, 11, 10, 0.0, A, 10, B, 10, 1.0, C, 10)


def test_epilogue_argument_errors(no_launch):
    a = fake((64,), np.float32)
    c = fake((64,), np.float32)
    with pytest.raises(ValueError, match="activation must be None or one of"):
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, a, 8, a, 8, 0.0, c, 8, activation="softmax")
    with pytest.raises(ValueError, match="needs real data"):
        cz = fake((64,), np.complex64)
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, cz, 8, cz, 8, 0.0, cz, 8, activation="relu")
    with pytest.raises(TypeError, match="bias must have the dtype of A"):
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, a, 8, a, 8, 0.0, c, 8, bias=fake((8,), np.float64))
    with pytest.raises(ValueError, match="bias must be a 1-D vector of m=8"):
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, a, 8, a, 8, 0.0, c, 8, bias=fake((9,), np.float32))
    with pytest.raises(TypeError, match="host"):
        rocblas.gemm("N", "N", 8, 8, 8, 1.0, a, 8, a, 8, 0.0, c, 8, bias=np.zeros(8, np.float32))


@pytest.fixture
def prepared_launches(monkeypatch):
    """``_launch`` replaced by a recorder returning a recording ``run`` (the prepared launches),
    and the device switch by a no-op, so that gemm's warm path runs without a device (each test
    starts without prepared launches: ``fresh_prepared_launches``)."""

    record = {"launch": [], "run": []}

    def run(alpha, beta, A, B, C, bias):
        record["run"].append((alpha, beta, A, B, C, bias))

    def launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, flag_bits, **kw):
        record["launch"].append((m, n, k, alpha, A.ptr, B.ptr, C.ptr, flag_bits))
        return run

    monkeypatch.setattr(_plan, "launch", launch)
    monkeypatch.setattr(_launch, "on_device", SameDevice)
    return record


@needs_cupy
def test_a_repeated_gemm_call_takes_its_prepared_launches(prepared_launches):
    record = prepared_launches
    A, B, C = (fake((100,), np.float32, address=a) for a in (1 << 20, 1 << 21, 1 << 22))
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    assert len(record["launch"]) == 1 and not record["run"]
    # new buffers of the same layout, new scalars: no checks, no plan, the prepared launches
    A2, B2, C2 = (fake((100,), np.float32, address=a) for a in (1 << 23, 1 << 24, 1 << 25))
    rocblas.gemm("N", "N", 10, 5, 4, 2.5, A2, 10, B2, 4, 0.5, C2, 10)
    assert len(record["launch"]) == 1
    alpha, beta, a, b, c, bias = record["run"][-1]
    assert (a, b, c, bias) == (1 << 23, 1 << 24, 1 << 25, 0)
    assert alpha.dtype == np.float32 and alpha == 2.5 and beta.dtype == np.float32 and beta == 0.5


@needs_cupy
def test_a_changed_signature_is_checked_again(prepared_launches):
    record = prepared_launches
    A, B, C = (fake((100,), np.float32, address=a) for a in (1 << 20, 1 << 21, 1 << 22))
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    short = fake((40,), np.float32, address=1 << 22)
    with pytest.raises(ValueError, match="needs 50 elements of C"):  # another shape: checked
        rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, short, 10)
    with pytest.raises(TypeError, match="complex alpha needs complex data"):  # another scalar type
        rocblas.gemm("N", "N", 10, 5, 4, 1j, A, 10, B, 4, 0.0, C, 10)
    odd = fake((100,), np.float32, address=(1 << 23) + 2)
    with pytest.raises(ValueError, match="not aligned"):  # another alignment
        rocblas.gemm("N", "N", 10, 5, 4, 1.0, odd, 10, B, 4, 0.0, C, 10)
    with pytest.raises(TypeError, match="must be an integer"):  # a float size equal to the int one
        rocblas.gemm("N", "N", 10.0, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    rocblas.gemm("N", "N", 10, 5, 4, 0.0, A, 10, B, 4, 0.0, C, 10)  # alpha == 0: k passed as 0
    assert record["launch"][-1][2] == 0 and len(record["launch"]) == 2
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10, activation="relu")
    assert len(record["launch"]) == 3 and record["launch"][-1][-1] & (0xF << _simt.ACT_SHIFT)
    assert not record["run"]


@needs_cupy
def test_the_prepared_launches_follow_the_tuning_state(prepared_launches, monkeypatch):

    record = prepared_launches
    A, B, C = (fake((100,), np.float32, address=a) for a in (1 << 20, 1 << 21, 1 << 22))
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    assert len(record["launch"]) == 1 and len(record["run"]) == 1
    monkeypatch.setenv("ROCARRAY_TUNE", "0")  # another tuning mode: the plan may differ
    rocblas.gemm("N", "N", 10, 5, 4, 1.0, A, 10, B, 4, 0.0, C, 10)
    assert len(record["launch"]) == 2


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL + ["float16"])
@pytest.mark.parametrize("m, n, k", [(130, 70, 40), (64, 64, 20000)], ids=["one-launch", "split-k"])
def test_repeated_calls_take_the_prepared_launches_on_fresh_data(rng, monkeypatch, dtype, m, n, k):
    # fresh buffers (new addresses) and new scalars each call; only the first call of the
    # signature is checked and planned, the others run its prepared launches (beta == 0 on a
    # NaN-poisoned C: C must not be read)
    cold, warm = [], []
    put = plans.cache.put
    monkeypatch.setattr(plans.cache, "put", lambda key, plan: (warm.append(key) if key[0] == "rocblas.gemm" else None)
                        or put(key, plan))
    for module, name in ((_plan, "launch"), (_half, "launch")):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _f=original, **kw: cold.append(1) or _f(*a, **kw))
    passed = [(_scalar(dtype, alpha, 0.5), _scalar(dtype, beta, -0.25) if beta else 0.0)
              for alpha, beta in [(1.5, -0.5), (2.0, 0.25), (-0.75, 3.0), (0.5, 0)]]
    for alpha, beta in passed:
        run_gemm(rng, dtype, "NT", m, n, k, extra=(1, 0, 2), alpha=alpha, beta=beta, poison=beta == 0)
    signatures = {(type(alpha), type(beta)) for alpha, beta in passed}  # complex data: beta 0.0 is a float
    assert len(cold) == len(signatures) == len(warm), (cold, signatures)
