"""rocblas batched gemm (``_gemm/batched.py``: gemm_strided_batched, gemm_batched) against NumPy and the
reference BLAS rules.

GPU tests (``@pytest.mark.gpu``) store every operand's matrices column-major in one 1-D device
buffer (leading dimensions at or above the minimum, strides with gaps between matrices, spare
elements at the end), run one batched call, and compare the whole C buffer with a host twin: the
m x n elements of each C_b to a tolerance scaled by ``|alpha| |op(A_b)| |op(B_b)| + |beta| |C_b|``
and k, every other element exactly (gaps between the C matrices must stay untouched); A and B
must be unchanged. The references are float64/complex128 ``numpy.matmul`` on the stacked host
twin. beta == 0 runs on a NaN-poisoned C. Pointer-array mode builds its arrays from the same
buffers (in a shuffled order). CPU tests cover the routes and every argument error, on fake device arrays never launched on.
"""


import itertools

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide
from level3_host import GEMM_DTYPES as ALL, run_batched, scalar as _scalar
from rocblas_fixtures import fresh_prepared_launches, refuse_launches  # noqa: F401  (autouse)

from rocarray.rocblas._gemm import batched as _batched, batched_kernels as _batched_kernels, plan as _plan, simt as _simt
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

TRANS = [a + b for a, b in itertools.product("NTC", "NTC")]


def _ids(v):
    return str(v)


SIZES = [1, 7, 8, 16, 31, 32, 33, 64, 65, 100]


@pytest.mark.gpu
@pytest.mark.parametrize("batch", [1, 3, 1000])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", ALL)
def test_square_sizes_and_batches(rng, dtype, size, batch):
    if batch == 1000 and size > 33:
        batch = 200  # the host reference of 1000 large complex products is slow; the grid still has many blocks
    run_batched(rng, dtype, "NN", size, size, size, batch)


# (m, n, k, (lda, ldb, ldc) above the minimum, batch, pointers): every kernel tile (8, 16, 32, 64)
# and the tiled path, padded leading dimensions, k longer than one chunk
TRANS_SHAPES = [(7, 9, 5, (0, 0, 0), 5, False), (33, 31, 40, (2, 1, 3), 3, True),
                (16, 12, 70, (1, 0, 0), 4, False), (100, 65, 20, (0, 3, 1), 2, False),
                (70, 66, 9, (1, 1, 1), 2, True)]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", TRANS_SHAPES, ids=_ids)
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("dtype", ALL)
def test_transposes(rng, dtype, trans, shape):
    m, n, k, extra, batch, pointers = shape
    run_batched(rng, dtype, trans, m, n, k, batch, extra, pointers=pointers)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(8, 8, 8, 100), (32, 32, 32, 50), (65, 40, 30, 3)], ids=_ids)
@pytest.mark.parametrize("dtype", ALL)
def test_stride_zero_broadcasts(rng, dtype, shape):
    m, n, k, batch = shape
    run_batched(rng, dtype, "NT", m, n, k, batch, (1, 0, 2), stride_a=0)
    run_batched(rng, dtype, "CN", m, n, k, batch, stride_b=0)
    run_batched(rng, dtype, "NN", m, n, k, batch, stride_a=0, stride_b=0)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(8, 8, 8, 40), (31, 32, 33, 9), (64, 64, 64, 3), (100, 70, 20, 2)],
                         ids=_ids)
@pytest.mark.parametrize("dtype", ALL)
def test_beta_zero_does_not_read_c(rng, dtype, shape):
    m, n, k, batch = shape
    run_batched(rng, dtype, "TN", m, n, k, batch, (2, 0, 1), beta=0, poison=True, gap=7)
    run_batched(rng, dtype, "NC", m, n, k, batch, beta=0, poison=True, pointers=True)


@pytest.mark.gpu
@pytest.mark.parametrize("pointers", [False, True])
@pytest.mark.parametrize("dtype", ALL)
def test_alpha_zero_k_zero_and_empty(rng, dtype, pointers):
    beta = _scalar(dtype, 2.0, -1.0)
    for m, n in ((20, 12), (70, 80)):
        run_batched(rng, dtype, "NT", m, n, 20, 5, alpha=0, beta=beta, pointers=pointers)     # A, B not read
        run_batched(rng, dtype, "NT", m, n, 20, 5, alpha=0, beta=0, poison=True, pointers=pointers)
        run_batched(rng, dtype, "CN", m, n, 0, 5, beta=beta, pointers=pointers)                # k == 0
        run_batched(rng, dtype, "CN", m, n, 0, 5, beta=0, poison=True, pointers=pointers)
    run_batched(rng, dtype, "NN", 20, 12, 20, 5, alpha=0, beta=1, poison=True, pointers=pointers)  # no-op
    run_batched(rng, dtype, "NN", 0, 12, 20, 5, pointers=pointers)
    run_batched(rng, dtype, "TN", 12, 0, 20, 5, pointers=pointers)
    run_batched(rng, dtype, "NN", 12, 12, 20, 0, pointers=pointers)


@pytest.mark.gpu
@pytest.mark.parametrize("size", [8, 16, 32, 64])
@pytest.mark.parametrize("dtype", ALL)
def test_pointer_mode_many_matrices(rng, dtype, size):
    run_batched(rng, dtype, "NN", size, size, size, 1000 if size <= 32 else 100, pointers=True)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(32, 32, 32, 4003), (32, 30, 70, 2001), (64, 33, 100, 1001),
                                   (130, 70, 40, 3)], ids=_ids)
@pytest.mark.parametrize("mode", ["NN", "TC", "pointers"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_streaming_kernel_walks_many_items(rng, dtype, mode, shape):
    """More work items than one resident wave (each block walks several, k in several chunks)."""
    m, n, k, batch = shape
    pointers = mode == "pointers"
    run_batched(rng, dtype, "NN" if pointers else mode, m, n, k, batch, (1, 0, 2) if mode == "TC" else (0, 0, 0),
                pointers=pointers)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "CT"])
@pytest.mark.parametrize("dtype", ALL)
def test_pointer_mode_few_large_products(rng, dtype, trans):
    """m n k >= 512^3 and at most 64 products: one level-3 gemm per product."""
    assert _batched_kernels.choose(520, 260, True, 2, 1000) == "pointer-loop"
    run_batched(rng, dtype, trans, 520, 260, 1000, 2, (1, 2, 3), pointers=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_pointer_mode_repeated_operands(rng, dtype):
    """Pointer entries may repeat for A and B (one shared operand), not for C."""
    m, n, k, batch = 9, 7, 5, 6
    a = to_device(random_array(rng, m * k, dtype))
    bs = [to_device(random_array(rng, k * n, dtype)) for _ in range(batch)]
    cs = [to_device(random_array(rng, m * n, dtype)) for _ in range(batch)]
    before = [to_host(c) for c in cs]
    ptr = lambda xs: to_device(np.array([x.data.ptr for x in xs], dtype=np.uint64))  # noqa: E731
    rocblas.gemm_batched("N", "N", m, n, k, 1.0, ptr([a] * batch), m, ptr(bs), k, 1.0, ptr(cs), m, batch,
                         dtype=dtype)
    am = wide(to_host(a)).reshape(k, m).T
    for b, c, c0 in zip(bs, cs, before):
        want = am @ wide(to_host(b)).reshape(n, k).T + wide(c0).reshape(n, m).T
        assert_close(to_host(c).reshape(n, m).T, want, dtype, k, atol_scale=float(np.max(np.abs(want))) + k)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1000, 32, 32, 32), (1000, 8, 4, 6), (3, 70, 90, 65)], ids=_ids)
@pytest.mark.parametrize("dtype", ALL)
def test_c_order_stack_is_cupy_matmul(rng, dtype, shape):
    """The benchmark's mapping: a C-ordered (b, m, k) @ (b, k, n) stack as C^T = B^T A^T."""
    batch, m, k, n = shape
    a3 = random_array(rng, (batch, m, k), dtype)
    b3 = random_array(rng, (batch, k, n), dtype)
    c3 = to_device(np.full((batch, m, n), np.nan, dtype))
    rocblas.gemm_strided_batched("N", "N", n, m, k, 1.0, to_device(b3), n, k * n, to_device(a3), k, m * k, 0.0,
                                 c3, n, m * n, batch)
    want = np.matmul(wide(a3), wide(b3))
    assert_close(to_host(c3), want, dtype, k, atol_scale=float(np.max(np.abs(wide(a3)) @ np.abs(wide(b3)))))


@pytest.fixture
def no_launch(monkeypatch):
    """Fail (instead of launching on fake memory) if anything reaches a kernel or the device."""

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(_batched_kernels, "launch_small", refuse)
    refuse_launches(monkeypatch)
    monkeypatch.setattr(_plan, "launch", refuse)


def assert_launches(call):
    """The checks pass and the call reaches the (refused) launch."""
    with pytest.raises(AssertionError, match="kernel launch"):
        call()


@needs_cupy
def test_repeated_strided_calls_take_the_remembered_launches(monkeypatch):
    """A repeated signature runs the launches the first call returned, on the new addresses;
    another alignment, stride or scalar is another signature."""
    cold, warm = [], []

    def launch_strided(device_id, dtype, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch, flags):
        cold.append((m, sa, float(alpha), A.ptr, B.ptr, C.ptr))
        return lambda alpha, beta, a, b, c: warm.append((m, float(alpha), float(beta), a, b, c))

    monkeypatch.setattr(_batched_kernels, "launch_strided", launch_strided)
    mats = [fake((10**5,), np.float32, address=(1 << 30) * (i + 1)) for i in range(6)]
    odd = fake((10**5,), np.float32, address=(1 << 30) + 4)

    def call(A, B, C, alpha=1.0, stride=64):
        rocblas.gemm_strided_batched("N", "N", 8, 8, 8, alpha, A, 8, stride, B, 8, stride, 0.0, C, 8, stride, 100)

    call(*mats[:3])
    call(*mats[3:])
    call(*mats[:3])
    assert len(cold) == 1 and warm == [(8, 1.0, 0.0, mats[3].data.ptr, mats[4].data.ptr, mats[5].data.ptr),
                                       (8, 1.0, 0.0, mats[0].data.ptr, mats[1].data.ptr, mats[2].data.ptr)]
    call(odd, *mats[1:3])              # A 4 bytes off 16-byte alignment
    call(*mats[:3], alpha=2.0)
    call(*mats[:3], stride=72)
    assert [c[1:3] for c in cold] == [(64, 1.0), (64, 1.0), (64, 2.0), (72, 1.0)] and len(warm) == 2
    monkeypatch.setattr(_batched_kernels, "launch_strided", lambda *a: cold.append(a))   # None: nothing to repeat
    call(*mats[:3], stride=80)
    call(*mats[:3], stride=80)
    assert len(cold) == 6 and len(warm) == 2


def test_dtypes_are_the_four_standard_ones():
    assert [np.dtype(d) for d in ALL] == list(_batched.SUPPORTED) == list(_batched_kernels.DTYPES)
    for dtype in ALL:
        assert _batched.check_dtype("gemm_strided_batched", dtype) == np.dtype(dtype)
    for dtype in ("float16", "bfloat16"):
        try:
            dt = np.dtype(dtype)
        except TypeError:
            continue  # NumPy without a bfloat16 dtype
        with pytest.raises(TypeError, match=f"rocblas.gemm_batched: {dtype} is not supported yet"):
            _batched.check_dtype("gemm_batched", dt)
    with pytest.raises(TypeError, match="unsupported dtype int64"):
        _batched.check_dtype("gemm_batched", np.int64)


@needs_cupy
def test_routes(monkeypatch):
    """Small matrices take the batched kernel; large strided ones the level-3 batch grid."""
    calls = []
    monkeypatch.setattr(_batched_kernels, "launch_small", lambda *a, **kw: calls.append(("small", a, kw)))
    monkeypatch.setattr(_plan, "launch", lambda *a, **kw: calls.append(("level3", a, kw)))
    A = fake((10**6,), np.float32)
    B = fake((10**6,), np.float32, address=1 << 30)
    C = fake((10**6,), np.float32, address=1 << 31)
    rocblas.gemm_strided_batched("N", "T", 64, 64, 100, 1.0, A, 64, 6400, B, 64, 6400, 0.0, C, 64, 4096, 10)
    rocblas.gemm_strided_batched("N", "N", 65, 64, 10, 1.0, A, 65, 650, B, 10, 640, 0.0, C, 65, 4160, 10)
    P = [fake((10,), np.uint64, address=1 << 24 + i) for i in range(3)]
    rocblas.gemm_batched("N", "N", 65, 64, 10, 2.0, P[0], 65, P[1], 10, 0.0, P[2], 65, 10, dtype=np.float32)
    assert [c[0] for c in calls] == ["small", "level3", "small"]
    assert calls[1][2] == {"batch": 10, "stride_a": 650, "stride_b": 640, "stride_c": 4160}
    assert calls[1][1][4] == 10                                   # k
    assert calls[1][1][-1] == 0                                   # flags 'NN'
    assert calls[0][1][-1] == _batched_kernels.TRANS_B            # flags 'NT'
    assert calls[2][1][6][0] is None and calls[2][1][6][1] is P[0]  # pointer mode: (None, A_array)
    # a few large products in pointer mode: one level-3 gemm each, on the host copies of the pointers
    calls.clear()
    host = [np.array([1 << 30, 1 << 31], np.uint64), np.array([1 << 32, 1 << 33], np.uint64),
            np.array([1 << 34, 1 << 35], np.uint64)]
    monkeypatch.setattr(_batched_kernels, "_host_pointers", lambda arrays, batch: host)
    rocblas.gemm_batched("T", "N", 600, 500, 700, 1.0, P[0], 700, P[1], 700, 0.5, P[2], 600, 2, dtype=np.float64)
    assert [c[0] for c in calls] == ["level3", "level3"]
    for i, (_, args, kw) in enumerate(calls):
        assert kw == {}
        assert args[2:5] == (600, 500, 700) and args[-1] == _simt.TRANS_A
        assert [args[j].ptr for j in (6, 8, 11)] == [int(h[i]) for h in host]
        assert args[6].mem.size == (600 - 1) * 700 * 8 + 700 * 8   # A stored k x m, lda 700
        assert args[11].mem.size == (500 - 1) * 600 * 8 + 600 * 8  # C m x n, ldc 600


@needs_cupy
def test_strided_argument_errors_raise_before_the_device(no_launch):
    A = fake((1000,), np.float32)
    B = fake((1000,), np.float32, address=1 << 21)
    C = fake((1000,), np.float32, address=1 << 22)
    sb = rocblas.gemm_strided_batched

    def call(*, ta="N", tb="N", m=4, n=5, k=3, alpha=1.0, a=A, lda=4, sa=12, b=B, ldb=3, sbb=15, beta=0.0,
             c=C, ldc=4, sc=20, batch=10):
        return sb(ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sbb, beta, c, ldc, sc, batch)

    assert_launches(call)
    with pytest.raises(ValueError, match="transA must be one of 'N', 'T', 'C'"):
        call(ta="X")
    with pytest.raises(ValueError, match="transB must be one of"):
        call(tb="H")
    for name in ("m", "n", "k"):
        with pytest.raises(ValueError, match=f"{name} must be >= 0"):
            call(**{name: -1})
    with pytest.raises(ValueError, match="batch_count must be >= 0"):
        call(batch=-1)
    with pytest.raises(TypeError, match="integer"):
        call(batch=2.0)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 4\)"):
        call(lda=3)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 3\)"):
        call(ta="T", lda=2)
    with pytest.raises(ValueError, match=r"ldb must be >= max\(1, 3\)"):
        call(ldb=2)
    with pytest.raises(ValueError, match=r"ldb must be >= max\(1, 5\)"):
        call(tb="C", ldb=4)
    with pytest.raises(ValueError, match=r"ldc must be >= max\(1, 4\)"):
        call(ldc=3)
    for name, key in (("stride_a", "sa"), ("stride_b", "sbb"), ("stride_c", "sc")):
        with pytest.raises(ValueError, match=f"{name} must be >= 0"):
            call(**{key: -1})
        with pytest.raises(TypeError, match="integer"):
            call(**{key: 1.5})
    # C matrices must not overlap (stride_c >= ldc * n), only checked with more than one matrix
    with pytest.raises(ValueError, match=r"stride_c must be >= ldc \* n = 20 when batch_count > 1"):
        call(sc=19)
    with pytest.raises(ValueError, match=r"stride_c must be >= ldc \* n = 30"):
        call(ldc=6, sc=29)
    assert_launches(lambda: call(sc=0, batch=1))
    assert_launches(lambda: call(sa=0, sbb=0))  # A and B may be shared
    # buffers too short: 10 A matrices of 4 x 3, 12 apart, need 9 * 12 + 12 = 120 elements
    with pytest.raises(ValueError, match="need 120 elements of A"):
        call(a=fake((119,), np.float32))
    assert_launches(lambda: call(a=fake((120,), np.float32)))
    with pytest.raises(ValueError, match="need 150 elements of B"):
        call(b=fake((149,), np.float32, address=1 << 21))
    with pytest.raises(ValueError, match="need 200 elements of C"):
        call(c=fake((199,), np.float32, address=1 << 22))
    with pytest.raises(ValueError, match="need 1019 elements of C"):
        call(sc=111)
    # types
    with pytest.raises(TypeError, match="A is a host"):
        call(a=np.ones(1000, np.float32))
    with pytest.raises(TypeError, match="C is a host"):
        call(c=np.ones(1000, np.float32))
    with pytest.raises(TypeError, match="B must be a cupy.ndarray"):
        call(b=[1.0] * 1000)
    assert _batched.check_dtype("gemm_strided_batched", np.float16, sixteen_bit=True) == np.float16  # matrix units
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        call(a=fake((1000,), np.int32), b=fake((1000,), np.int32, address=1 << 21),
             c=fake((1000,), np.int32, address=1 << 22))
    with pytest.raises(TypeError, match=r"B must have the dtype of A \(float32\), got float64"):
        call(b=fake((1000,), np.float64, address=1 << 21))
    with pytest.raises(TypeError, match="C must have the dtype of A"):
        call(c=fake((1000,), np.complex64, address=1 << 22))
    with pytest.raises(TypeError, match="complex alpha"):
        call(alpha=1j)
    with pytest.raises(TypeError, match="complex beta"):
        call(beta=1j)
    # layout and alignment: any contiguous array is its flat memory
    assert_launches(lambda: call(a=fake((10, 100), np.float32)))
    assert_launches(lambda: call(c=fake((10, 10, 10), np.float32, order="F", address=1 << 22)))
    with pytest.raises(ValueError, match="A must be a contiguous buffer"):
        call(a=fake((2000,), np.float32)[::2])
    with pytest.raises(ValueError, match="C must be a contiguous buffer"):
        call(c=fake((100, 20), np.float32, address=1 << 22)[:, :10])
    with pytest.raises(ValueError, match="B is not aligned"):
        c128 = np.complex128
        call(a=fake((1000,), c128), b=fake((1000,), c128, address=(1 << 21) + 8),
             c=fake((1000,), c128, address=1 << 22))


@needs_cupy
def test_strided_noops_never_reach_the_device(no_launch):
    A = fake((1000,), np.float32)
    B = fake((1000,), np.float32, address=1 << 21)
    C = fake((1000,), np.float32, address=1 << 22)
    sb = rocblas.gemm_strided_batched
    assert sb("N", "N", 4, 5, 3, 1.0, A, 4, 12, B, 3, 15, 0.0, C, 4, 20, 0) is None          # batch 0
    assert sb("N", "N", 0, 5, 3, 1.0, A, 1, 12, B, 3, 15, 0.0, C, 1, 20, 10) is None         # m 0
    assert sb("N", "N", 4, 0, 3, 1.0, A, 4, 12, B, 3, 15, 0.0, C, 4, 0, 10) is None          # n 0
    assert sb("N", "N", 4, 5, 3, 0.0, A, 4, 12, B, 3, 15, 1.0, C, 4, 20, 10) is None         # alpha 0, beta 1
    assert sb("T", "C", 4, 5, 0, 2.0, A, 1, 12, B, 5, 15, 1.0, C, 4, 20, 10) is None         # k 0, beta 1
    # batch 0 needs no buffer at all; k 0 with beta != 1 still scales C
    assert sb("N", "N", 4, 5, 3, 1.0, fake((1,), np.float32), 4, 12, B, 3, 15, 0.0, C, 4, 20, 0) is None
    assert_launches(lambda: sb("N", "N", 4, 5, 0, 1.0, A, 4, 0, B, 1, 0, 0.5, C, 4, 20, 10))
    # a no-op still rejects bad arguments and short buffers once the sizes are positive
    with pytest.raises(ValueError, match="stride_c must be >= ldc"):
        sb("N", "N", 4, 5, 3, 1.0, A, 4, 12, B, 3, 15, 0.0, C, 4, 19, 0 + 2)
    with pytest.raises(ValueError, match="need 200 elements of C"):
        sb("N", "N", 4, 5, 3, 0.0, A, 4, 12, B, 3, 15, 1.0, fake((100,), np.float32, address=1 << 22), 4, 20, 10)


@needs_cupy
def test_pointer_argument_errors_raise_before_the_device(no_launch):
    P = [fake((10,), np.uint64, address=(1 << 20) + 4096 * i) for i in range(3)]
    gb = rocblas.gemm_batched

    def call(*, ta="N", tb="N", m=4, n=5, k=3, alpha=1.0, pa=P[0], lda=4, pb=P[1], ldb=3, beta=0.0, pc=P[2],
             ldc=4, batch=10, dtype=np.float32):
        return gb(ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, ldc, batch, dtype=dtype)

    assert_launches(call)
    assert_launches(lambda: call(pa=fake((10,), np.int64), dtype="complex128", alpha=1j))
    with pytest.raises(ValueError, match="transA must be one of"):
        call(ta="Z")
    with pytest.raises(ValueError, match="batch_count must be >= 0"):
        call(batch=-2)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 3\)"):
        call(ta="C", lda=2)
    with pytest.raises(ValueError, match=r"ldc must be >= max\(1, 4\)"):
        call(ldc=1)
    with pytest.raises(ValueError, match="A_array has 10 pointers, fewer than batch_count=11"):
        call(batch=11)
    with pytest.raises(TypeError, match="B_array must hold 64-bit pointers"):
        call(pb=fake((10,), np.uint32))
    with pytest.raises(TypeError, match="C_array is a host"):
        call(pc=np.zeros(10, np.uint64))
    with pytest.raises(TypeError, match="A_array must be a cupy.ndarray of device pointers"):
        call(pa=[0] * 10)
    with pytest.raises(ValueError, match="C_array must be a contiguous 1-D array"):
        call(pc=fake((20,), np.uint64)[::2])
    with pytest.raises(ValueError, match="A_array must be a contiguous 1-D array"):
        call(pa=fake((2, 5), np.uint64))
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        call(dtype=np.int32)
    with pytest.raises(TypeError, match="float16 is not supported yet"):
        call(dtype=np.float16)
    with pytest.raises(TypeError, match="complex alpha"):
        call(alpha=2j)
    with pytest.raises(TypeError):
        gb("N", "N", 4, 5, 3, 1.0, P[0], 4, P[1], 3, 0.0, P[2], 4, 10)  # dtype is required
    # quick returns after the checks
    assert call(batch=0) is None
    assert call(m=0, lda=1, ldc=1) is None
    assert call(alpha=0.0, beta=1.0) is None
    assert call(k=0, beta=1.0, ldb=1) is None
    assert_launches(lambda: call(k=0, beta=0.0, ldb=1))


def test_self_checks_and_bench_cases_are_registered():
    from rocarray._core import harness

    harness.load_all()  # the command line loads them; a test run on its own must too
    names = {c.name for c in harness.self_checks() if c.library == "rocblas"}
    assert {"rocblas.gemm_strided_batched", "rocblas.gemm_batched"} <= names
    cases = {c.name: c for c in harness.bench_cases() if c.library == "rocblas"}
    case = cases["rocblas.gemm_strided_batched_1e5x32_float32"]
    assert case.bytes_moved == 3 * 10**5 * 32 * 32 * 4 and case.memory_bound
    assert case.flops == 2 * 10**5 * 32**3
    for edge in (8, 16, 64):
        assert cases[f"rocblas.gemm_strided_batched_1e5x{edge}_float32"].memory_bound
    big = cases["rocblas.gemm_strided_batched_64x1024_float32"]
    assert big.flops == 2 * 64 * 1024**3 and not big.memory_bound
