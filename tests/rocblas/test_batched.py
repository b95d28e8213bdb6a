"""rocblas batched gemm (gemm_strided_batched, gemm_batched) against NumPy and the reference BLAS rules.

GPU tests (``@pytest.mark.gpu``) store every operand's matrices column-major in one 1-D device
buffer (leading dimensions at or above the minimum, strides with gaps between matrices, spare
elements at the end), run one batched call, and compare the whole C buffer with a host twin: the
m x n elements of each C_b to a tolerance scaled by ``|alpha| |op(A_b)| |op(B_b)| + |beta| |C_b|``
and k, every other element exactly (gaps between the C matrices must stay untouched); A and B
must be unchanged. The references are float64/complex128 ``numpy.matmul`` on the stacked host
twin. beta == 0 runs on a NaN-poisoned C. Pointer-array mode builds its arrays from the same
buffers (in a shuffled order). CPU tests cover the pure-Python layer: kernel names and
registration, the kernel choice and geometry, and every argument error, on fake device arrays
never launched on.
"""

import itertools
import re
import types

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide
from level3_host import as_passed, scalar as _scalar

from rocarray._core import compile as _compile, launch as _launch
from rocarray.rocblas import _batched, _batched_kernel, _level3
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

ALL = ["float32", "float64", "complex64", "complex128"]
TRANS = [a + b for a, b in itertools.product("NTC", "NTC")]


@pytest.fixture(autouse=True)
def fresh_prepared_launches(monkeypatch):
    """Launches remembered or prepared by earlier calls (the strided repeats in level 3's warm
    table, the prepared kernels of the batched kernels) must not stand in for what a test forces
    or fakes."""
    monkeypatch.setattr(_level3, "_warm", {})
    monkeypatch.setattr(_batched_kernel, "_prepared", {})


def _ids(v):
    return str(v)


# --------------------------------------------------------------------------------------------
# host twins
# --------------------------------------------------------------------------------------------

class Stack:
    """``batch`` column-major rows x cols matrices, ``stride`` apart, in one 1-D device buffer."""

    def __init__(self, rng, rows, cols, ld, stride, batch, dtype, fill=None):
        one = (max(cols, 1) - 1) * ld + max(rows, 1)
        size = max(batch - 1, 0) * stride + one + 3
        self.host = random_array(rng, size, dtype) if fill is None else np.full(size, fill, dtype)
        self.rows, self.cols, self.ld, self.stride, self.batch = rows, cols, ld, stride, batch
        self.pos = (np.arange(batch)[:, None, None] * stride + np.arange(rows)[None, :, None]
                    + np.arange(cols)[None, None, :] * ld)
        self.dev = to_device(self.host)

    def matrices(self):
        """The (batch, rows, cols) stack in the reference precision."""
        return wide(self.host[self.pos])

    def pointers(self, order):
        """Device array of the matrices' addresses, ``order[b]``-th matrix at entry b."""
        base = self.dev.data.ptr
        size = self.host.dtype.itemsize
        return to_device(np.array([base + int(b) * self.stride * size for b in order], dtype=np.uint64))

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev), self.host)


def _op(a, trans):
    """op() of every matrix of a (batch, rows, cols) stack."""
    if trans == "N":
        return a
    t = np.swapaxes(a, 1, 2)
    return t.conj() if trans == "C" else t


def run_batched(rng, dtype, trans, m, n, k, batch, extra=(0, 0, 0), alpha=None, beta=None, poison=False,
                stride_a=None, stride_b=None, gap=2, pointers=False):
    """One batched gemm on fresh random buffers, checked against the host reference.

    ``stride_a``/``stride_b`` default to the matrix size plus 1 and 2 elements (0 broadcasts);
    C matrices are ``ldc * n + gap`` apart. ``pointers`` runs gemm_batched on pointer arrays
    into the same buffers, matrices in a shuffled order.
    """
    ta, tb = trans
    alpha = _scalar(dtype, 1.5, 0.25) if alpha is None else alpha
    beta = _scalar(dtype, -0.5, 0.75) if beta is None else beta
    ar, ac = (m, k) if ta == "N" else (k, m)
    br, bc = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = max(1, ar) + extra[0], max(1, br) + extra[1], max(1, m) + extra[2]
    sa = (max(ac, 1) - 1) * lda + max(ar, 1) + 1 if stride_a is None else stride_a
    sb = (max(bc, 1) - 1) * ldb + max(br, 1) + 2 if stride_b is None else stride_b
    sc = ldc * n + gap
    a = Stack(rng, ar, ac, lda, sa, batch, dtype)
    b = Stack(rng, br, bc, ldb, sb, batch, dtype)
    c = Stack(rng, m, n, ldc, sc, batch, dtype, fill=np.nan if poison else None)
    if pointers:
        order = rng.permutation(batch)
        pa, pb, pc = a.pointers(order), b.pointers(order), c.pointers(order)
        assert rocblas.gemm_batched(ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, ldc, batch,
                                    dtype=dtype) is None
    else:
        assert rocblas.gemm_strided_batched(ta, tb, m, n, k, alpha, a.dev, lda, sa, b.dev, ldb, sb, beta,
                                            c.dev, ldc, sc, batch) is None
    a.unchanged()
    b.unchanged()
    got = to_host(c.dev)
    rest = np.ones(got.shape, bool)
    rest[c.pos] = False
    np.testing.assert_array_equal(got[rest], c.host[rest], err_msg="elements outside the C matrices changed")
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    if m == 0 or n == 0 or batch == 0 or ((al == 0 or k == 0) and be == 1):
        c.unchanged()
        return
    cm = c.matrices()
    want = np.zeros((batch, m, n), cm.dtype if be != 0 else np.float64)
    scale = np.zeros((batch, m, n))
    if al != 0 and k > 0:
        oa, ob = _op(a.matrices(), ta), _op(b.matrices(), tb)
        want = al * np.matmul(oa, ob)
        scale = abs(al) * np.matmul(np.abs(oa), np.abs(ob))
    if be != 0:
        want = want + be * cm
        scale = scale + abs(be) * np.abs(cm)
    assert_close(got[c.pos], want, dtype, max(k, 1), atol_scale=float(np.max(scale)))


# --------------------------------------------------------------------------------------------
# GPU: against NumPy
# --------------------------------------------------------------------------------------------

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
    assert _batched_kernel.choose(520, 260, True, 2, 1000) == "pointer-loop"
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
def bulk_launches(monkeypatch):
    """The tiles of the packed square float32 launches, team or bulk-copy kernel (the launches
    themselves run)."""
    seen = []
    real = _batched_kernel.launch_bulk

    def spy(device_id, tile, *args):
        seen.append(tile)
        return real(device_id, tile, *args)

    monkeypatch.setattr(_batched_kernel, "launch_bulk", spy)
    return seen


# (trans, batch, stride_a, stride_b, extra (ldc above S), beta): packed and gapped strides (multiples
# of four floats), broadcast operands, partial last groups (batch not a multiple of 4), more groups
# than one resident wave with several laps of the three-stage ring, beta == 0 on a NaN C (packed or
# with a padded ldc)
BULK_CASES = [("NN", 1, None, None, 0, None), ("NT", 3, None, None, 3, None), ("NN", 5, "gap", "gap", 0, None),
              ("NT", 4001, None, None, 0, 0.0), ("NN", 4003, 0, None, 1, None), ("NN", 9002, None, 0, 0, 0.0),
              ("NT", 9001, "gap", None, 0, 1.0), ("NN", 4099, None, None, 0, 0.0), ("NN", 7, None, None, 1, 0.0)]


@pytest.mark.gpu
@pytest.mark.parametrize("case", BULK_CASES, ids=_ids)
@pytest.mark.parametrize("size", _batched_kernel.BULK_TILES)
def test_bulk_copy_kernel(rng, bulk_launches, size, case):
    """Packed square float32 products: the team kernel (32) or the bulk-copy kernel (64) on sm_90,
    the other kernels elsewhere."""
    from rocarray._core import backend

    trans, batch, sa, sb, extra, beta = case
    if size == 64:
        batch = -(-batch // 4)   # the host reference; still several groups per block
    packed = size * size
    sa = packed + 4 if sa == "gap" else (packed if sa is None else sa)
    sb = packed + 8 if sb == "gap" else (packed if sb is None else sb)
    run_batched(rng, "float32", trans, size, size, size, batch, (0, 0, extra), beta=beta, poison=beta == 0.0,
                stride_a=sa, stride_b=sb)
    major, _ = backend.compute_capability_version(backend.device_info(0))
    bulk = _batched_kernel.bulk_device(backend.device_info(0).is_hip, major)
    assert bulk_launches == ([size] if bulk else [])


@pytest.mark.gpu
@pytest.mark.parametrize("case", [("TN", 0), ("NN", 1), ("NN", 2)], ids=_ids)
def test_bulk_copy_kernel_declines_other_layouts(rng, bulk_launches, case):
    """op(A) = A^T, a stride off 16 bytes, a padded lda: the other kernels, same results."""
    trans, what = case
    sa = 1025 if what == 1 else None
    run_batched(rng, "float32", trans, 32, 32, 32, 37, (1 if what == 2 else 0, 0, 0),
                stride_a=1024 if sa is None and what != 2 else sa)
    assert bulk_launches == []


@pytest.mark.gpu
def test_bulk_copy_kernel_uses_its_planned_resources():
    from cupy.cuda import driver

    from rocarray._core import backend, launch

    bk = _batched_kernel
    major, _ = backend.compute_capability_version(backend.device_info(0))
    if not bk.bulk_device(backend.device_info(0).is_hip, major):
        pytest.skip("this device takes the other batched kernels")
    for tile in bk.BULK_TILES:
        for b_trans in (False, True):
            if tile == bk.TEAM_TILE:   # the carveout the launch asks for leaves room for TEAM_RESIDENT teams
                kernel, _ = bk._kernel(bk.team_name(b_trans), 0)
                launch.prefer_carveout(kernel, bk.TEAM_CARVEOUT)
                block, shared, planned = bk.TEAM, 0, bk.TEAM_RESIDENT
            else:
                kernel, _ = bk._kernel(bk.bulk_name(tile, b_trans), 0)
                block, shared, planned = bk.BLOCK, bk.bulk_shared(tile), bk.bulk_blocks(tile)
                launch.allow_shared(kernel, shared)
            assert kernel.attributes["local_size_bytes"] == 0
            resident = driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, block, shared)
            assert resident == planned, (tile, b_trans, resident)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "NT"])
@pytest.mark.parametrize("size", _batched_kernel.BULK_TILES)
def test_bulk_copy_kernel_chain_reads_each_previous_result(rng, bulk_launches, size, trans):
    """Bulk launches queued as programmatic dependents, each reading the C its predecessor writes
    (A of product i + 1 is C of product i): a launch that touched memory before the previous grid
    completed would read the NaN poison or a partial C. Each result is checked in float64."""
    from rocarray._core import backend, dependent_launch

    major, _ = backend.compute_capability_version(backend.device_info(0))
    bulk = _batched_kernel.bulk_device(backend.device_info(0).is_hip, major)
    if bulk:
        assert dependent_launch.available()
    batch, links = 20011 if size == 32 else 5003, 5   # many groups per block: the grids' tails overlap
    packed = size * size
    b_host = (rng.standard_normal((batch, size, size)) / np.sqrt(size)).astype(np.float32)   # column-major
    stacks = [(rng.standard_normal((batch, size, size)) / np.sqrt(size)).astype(np.float32)]
    dev_b = to_device(b_host.reshape(-1))
    dev = [to_device(stacks[0].reshape(-1))] + [to_device(np.full(batch * packed, np.nan, np.float32))
                                                for _ in range(links)]
    for i in range(links):
        rocblas.gemm_strided_batched(trans[0], trans[1], size, size, size, np.float32(1), dev[i], size, packed,
                                     dev_b, size, packed, np.float32(0), dev[i + 1], size, packed, batch)
    # column-major matrices read as C-ordered arrays are transposed: C^T = op(B)^T A^T
    b_op_t = b_host if trans[1] == "N" else np.swapaxes(b_host, 1, 2)
    want = stacks[0].astype(np.float64)
    for i in range(links):
        want = np.matmul(b_op_t.astype(np.float64), want)
        got = to_host(dev[i + 1]).reshape(batch, size, size)
        assert_close(got, want, "float32", size * (i + 1), atol_scale=float(np.max(np.abs(want))))
    assert bulk_launches[:1] == ([size] if bulk else [])   # repeats may take the remembered launch


# --------------------------------------------------------------------------------------------
# CPU: the pure-Python layer, on fake device arrays (never launched)
# --------------------------------------------------------------------------------------------

@pytest.fixture
def no_launch(monkeypatch):
    """Fail (instead of launching on fake memory) if anything reaches a kernel or the device."""

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(_batched_kernel, "launch_small", refuse)
    monkeypatch.setattr(_batched_kernel, "_kernel", refuse)
    monkeypatch.setattr(_level3, "_launch", refuse)


def assert_launches(call):
    """The checks pass and the call reaches the (refused) launch."""
    with pytest.raises(AssertionError, match="kernel launch"):
        call()


def test_kernel_names():
    assert _batched_kernel.kernel_name(np.float32, 32) == "ra_rocblas_gemm_batched<float, 32>"
    assert _batched_kernel.kernel_name(np.float64, 8) == "ra_rocblas_gemm_batched<double, 8>"
    assert _batched_kernel.kernel_name(np.complex64, 16) == "ra_rocblas_gemm_batched<ra_c64, 16>"
    assert _batched_kernel.kernel_name(np.complex128, 64) == "ra_rocblas_gemm_batched<ra_c128, 64>"


def test_every_launched_kernel_is_registered_and_exists():
    registered = set(_compile.registered(_batched_kernel.SOURCE))
    assert registered == set(_batched_kernel.instantiations())
    streams = sum(len(tiles) for tiles in _batched_kernel.STREAM.values())
    bulk = 2 * len(_batched_kernel.BULK_TILES)   # op(B) = B or B^T: the team kernel, bulk for the others
    assert len(registered) == 4 * len(_batched_kernel.TILES) + streams + bulk  # transposes and modes are runtime
    assert streams <= 6  # keep the module lean: every name compiles for each target in CI
    source = _compile.read_text(_batched_kernel.SOURCE)
    assert "ra_rocblas_gemm_batched(" in source
    assert "ra_rocblas_gemm_batched_stream(" in source
    assert "ra_rocblas_gemm_batched_bulk(" in source
    assert "ra_rocblas_gemm_batched_team(" in source
    assert "#include" not in source
    assert re.search(r"(?<![\w.])32(?![\w.])", source) is None, "literal 32 (use RA_WARP_SIZE)"
    assert "__shfl" not in source and "__ballot" not in source


def test_flag_bits_and_geometry_match_the_source():
    source = _compile.read_text(_batched_kernel.SOURCE)
    for name, value in [("TRANS_A", 1), ("CONJ_A", 2), ("TRANS_B", 4), ("CONJ_B", 8)]:
        assert re.search(rf"#define RA_ROCBLAS_GB_{name} 0x{value:02x}\b", source), name
        assert getattr(_batched_kernel, name) == value == getattr(_level3, name)
    assert re.search(rf"#define RA_ROCBLAS_GB_BLOCK {_batched_kernel.BLOCK}\b", source)
    assert re.search(r"#define RA_ROCBLAS_GB_CHUNK_BYTES 128\b", source)
    assert re.search(r"#define RA_ROCBLAS_GB_PAD_BYTES 16\b", source)


def test_configurations_fit_a_block_and_static_shared_memory():
    bk = _batched_kernel
    assert [bk.micro(s) for s in bk.TILES] == [2, 2, 4, 4]
    assert [bk.matrices_per_block(s) for s in bk.TILES] == [16, 4, 4, 1]
    assert [bk.k_chunk(s, np.float32) for s in bk.TILES] == [8, 16, 32, 32]
    assert [bk.k_chunk(s, np.complex128) for s in bk.TILES] == [8, 8, 8, 8]
    for dtype in ALL:
        for s in bk.TILES:
            threads = bk.matrices_per_block(s) * (s // bk.micro(s)) ** 2
            assert threads == bk.BLOCK
            assert (bk.matrices_per_block(s) * s * bk.k_chunk(s, dtype)) % bk.BLOCK == 0
            assert bk.shared_bytes(s, dtype) <= 40 * 1024, (dtype, s)


def test_bulk_copy_kernel_layout_rules():
    bk = _batched_kernel
    assert bk.bulk_name(64, False) == "ra_rocblas_gemm_batched_bulk<64, false>"
    assert bk.bulk_name(64, True) == "ra_rocblas_gemm_batched_bulk<64, true>"
    assert bk.team_name(False) == "ra_rocblas_gemm_batched_team<false>"
    assert bk.team_name(True) == "ra_rocblas_gemm_batched_team<true>"
    source = _compile.read_text(bk.SOURCE)
    assert re.search(rf"#define RA_ROCBLAS_GB_BULK_ALIGN {bk.BULK_ALIGN}\b", source)
    assert "STAGES = MB > 1 ? 4 : 3;" in source and "BLOCKS = MB > 1 ? 1 : 2;" in source
    # the team: 8 x 4 threads, four rows by eight columns of C each, one float4 per 4 k of B's column
    assert re.search(r"#define RA_ROCBLAS_GB_TEAM_TX 8\b", source) and re.search(r"#define RA_ROCBLAS_GB_TEAM_TY 4\b", source)
    assert bk.TEAM == 8 * 4 and bk.TEAM_TILE == 4 * 8 == 8 * 4 and bk.TEAM_TILE in bk.BULK_TILES
    assert "constexpr int S = 4 * RA_ROCBLAS_GB_TEAM_TX;" in source
    # The carveout asks for more than the 132 KiB size of an H200 multiprocessor (228 KiB at most), so
    # the driver takes the next one, 164 KiB: TEAM_RESIDENT teams of 8 KiB (plus the 1 KiB the driver
    # reserves a block) fit it, one more does not.
    assert 132 < bk.TEAM_CARVEOUT / 100 * 228 <= 164
    team = 2 * bk.TEAM_TILE**2 * 4 + 1024
    assert bk.TEAM_RESIDENT * team <= 164 * 1024 < (bk.TEAM_RESIDENT + 1) * team
    ring = [t for t in bk.BULK_TILES if t != bk.TEAM_TILE]
    assert ring == [64]
    assert [bk.bulk_stages(t) for t in ring] == [3]
    assert [bk.bulk_blocks(t) for t in ring] == [2]
    for tile in ring:
        assert bk.micro(tile) == 4   # the kernel reads float4 micro-tile rows
        assert 2 * bk.matrices_per_block(tile) * tile * tile * 4 == bk.BULK_STAGE_BYTES
        assert bk.bulk_shared(tile) == bk.bulk_stages(tile) * bk.BULK_STAGE_BYTES + bk.BULK_ALIGN
        # the planned blocks (with their static and reserved shared memory) fit an H200 multiprocessor
        assert bk.bulk_blocks(tile) * (bk.bulk_shared(tile) + 1024 + 64) <= 228 * 1024
    f32, T = np.float32, bk.TRANS_B
    fits = bk.bulk_fits
    assert fits(f32, 32, 32, 32, 32, 1024, 32, 1024, 0, 1 << 20, 1 << 21)
    assert fits(f32, 32, 32, 32, 32, 0, 32, 1028, T, 1 << 20, 16)       # broadcast A, gapped B, B^T
    assert fits(f32, 64, 64, 64, 64, 4096, 64, 4096, 0, 1 << 20, 1 << 21)
    assert not fits(np.float64, 32, 32, 32, 32, 1024, 32, 1024, 0, 1 << 20, 1 << 21)
    assert not fits(f32, 16, 16, 16, 16, 256, 16, 256, 0, 1 << 20, 1 << 21)     # not a bulk tile
    assert not fits(f32, 32, 32, 31, 32, 1024, 31, 1024, 0, 1 << 20, 1 << 21)   # k != S
    assert not fits(f32, 32, 31, 32, 32, 1024, 32, 1024, 0, 1 << 20, 1 << 21)   # n != S
    assert not fits(f32, 32, 32, 32, 33, 1056, 32, 1024, 0, 1 << 20, 1 << 21)   # padded lda
    assert not fits(f32, 32, 32, 32, 32, 1024, 32, 1024, bk.TRANS_A, 1 << 20, 1 << 21)
    assert not fits(f32, 32, 32, 32, 32, 1026, 32, 1024, 0, 1 << 20, 1 << 21)   # stride off 16 bytes
    assert not fits(f32, 32, 32, 32, 32, 1024, 32, 1024, 0, (1 << 20) + 4, 1 << 21)  # address off 16 bytes
    assert bk.bulk_device(False, 9) and bk.bulk_device(False, 10)
    assert not bk.bulk_device(False, 8) and not bk.bulk_device(True, 9)


class _RecordingKernel:
    """A kernel handle that records its launches: (name, grid, block, shared_mem, number of arguments)."""

    def __init__(self, name, launched, arguments=None):
        self.name, self.launched, self.arguments = name, launched, arguments

    def __call__(self, grid, block, args, shared_mem=0):
        self.launched.append((self.name, grid, block, shared_mem, len(args)))
        if self.arguments is not None:
            self.arguments.append(args)


@needs_cupy
def test_packed_launches_team_and_bulk(monkeypatch):
    """32: the team kernel, a block of TEAM threads a product, its carveout asked for; 64: the
    bulk-copy kernel, one wave with its shared memory. The repeats launch the same on new addresses."""
    bk = _batched_kernel
    launched, arguments, carveouts = [], [], []
    monkeypatch.setattr(bk, "_kernel", lambda name, device_id: (_RecordingKernel(name, launched, arguments), 1056))
    monkeypatch.setattr(bk.launch, "allow_shared", lambda kernel, nbytes: None)
    monkeypatch.setattr(bk.launch, "prefer_carveout", lambda kernel, percent: carveouts.append((kernel.name, percent)))
    monkeypatch.setattr(bk.launch, "occupancy", lambda kernel, block, limit, shared: 2)
    monkeypatch.setattr(bk.backend, "device_info", lambda device_id: types.SimpleNamespace(multiprocessors=132))
    monkeypatch.setattr(bk, "_bulk_waves", {})
    monkeypatch.setattr(bk, "_prepared", {})
    monkeypatch.setattr(_launch, "on_device", lambda device_id: __import__("contextlib").nullcontext())
    one, zero = np.float32(1), np.float32(0)
    bk.launch_bulk(0, 32, False, one, 1, 1024, 2, 1024, zero, 3, 32, 1024, 100000)
    bk.launch_bulk(0, 32, True, one, 1, 1024, 2, 1024, zero, 3, 32, 1024, 9)
    bk.launch_bulk(0, 64, False, one, 1, 4096, 2, 4096, zero, 3, 64, 4096, 100000)
    bk.launch_bulk(0, 64, True, one, 1, 4096, 2, 0, zero, 3, 64, 4096, 7)   # broadcast B
    assert launched == [("ra_rocblas_gemm_batched_team<false>", (100000,), (32,), 0, 9),
                        ("ra_rocblas_gemm_batched_team<true>", (9,), (32,), 0, 9),
                        ("ra_rocblas_gemm_batched_bulk<64, false>", (264,), (256,), bk.bulk_shared(64), 10),
                        ("ra_rocblas_gemm_batched_bulk<64, true>", (7,), (256,), bk.bulk_shared(64), 10)]
    assert carveouts == [("ra_rocblas_gemm_batched_team<false>", bk.TEAM_CARVEOUT),
                         ("ra_rocblas_gemm_batched_team<true>", bk.TEAM_CARVEOUT)]
    # the arguments: alpha, A, stride_a, B, stride_b, beta, C, ldc, stride_c (and the bulk kernel's batch)
    assert [int(a) for a in arguments[3][1:5]] == [1, 4096, 2, 0] and int(arguments[3][9]) == 7
    assert [int(a) for a in arguments[0][1:5]] == [1, 1024, 2, 1024] and int(arguments[0][8]) == 1024
    launched.clear(), arguments.clear()
    again = bk.launch_bulk(0, 32, False, one, 1, 1024, 2, 1024, zero, 3, 32, 1024, 100000)
    for b in (2, 4096, 8192):
        again(one, zero, 1, b, 3)
    assert launched == [launched[0]] * 4 and [int(a[3]) for a in arguments] == [2, 2, 4096, 8192]
    assert len(carveouts) == 2   # asked once, when the launch is prepared
    launched.clear()
    bk.launch_bulk(0, 64, False, one, 1, 4096, 2, 4096, zero, 3, 64, 4096, 100000)(one, zero, 8, 16, 32)
    assert launched == [launched[0]] * 2 and launched[0][0] == "ra_rocblas_gemm_batched_bulk<64, false>"


@needs_cupy
def test_repeated_strided_calls_take_the_remembered_launches(monkeypatch):
    """A repeated signature runs the launches the first call returned, on the new addresses;
    another alignment, stride or scalar is another signature."""
    bk = _batched_kernel
    cold, warm = [], []

    def launch_strided(device_id, dtype, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch, flags):
        cold.append((m, sa, float(alpha), A.ptr, B.ptr, C.ptr))
        return lambda alpha, beta, a, b, c: warm.append((m, float(alpha), float(beta), a, b, c))

    monkeypatch.setattr(bk, "launch_strided", launch_strided)
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
    monkeypatch.setattr(bk, "launch_strided", lambda *a: cold.append(a))   # None: nothing to repeat
    call(*mats[:3], stride=80)
    call(*mats[:3], stride=80)
    assert len(cold) == 6 and len(warm) == 2


@needs_cupy
def test_bulk_copy_route(monkeypatch):
    bk = _batched_kernel
    calls = []
    monkeypatch.setattr(bk, "launch_bulk", lambda device_id, tile, b_trans, *a: calls.append(("bulk", tile, b_trans)))
    monkeypatch.setattr(bk, "launch_small", lambda *a, **kw: calls.append(("small",)))
    monkeypatch.setattr(_launch, "on_device", lambda device_id: __import__("contextlib").nullcontext())
    A = fake((10**6,), np.float32)
    B = fake((10**6,), np.float32, address=1 << 30)
    C = fake((10**6,), np.float32, address=1 << 31)
    for device in (True, False):
        monkeypatch.setattr(bk, "_bulk", lambda device_id, device=device: device)
        rocblas.gemm_strided_batched("N", "T", 32, 32, 32, 1.0, A, 32, 1024, B, 32, 1024, 0.0, C, 33, 1056, 10)
        rocblas.gemm_strided_batched("N", "N", 64, 64, 64, 1.0, A, 64, 4096, B, 64, 4096, 0.0, C, 64, 4096, 10)
        rocblas.gemm_strided_batched("T", "N", 32, 32, 32, 1.0, A, 32, 1024, B, 32, 1024, 0.0, C, 32, 1024, 10)
        rocblas.gemm_strided_batched("N", "N", 32, 32, 32, 0.0, A, 32, 1024, B, 32, 1024, 2.0, C, 32, 1024, 10)
    # alpha == 0 is C := beta C (k passed as 0): never the bulk kernel
    assert calls == [("bulk", 32, True), ("bulk", 64, False), ("small",), ("small",)] + [("small",)] * 4


def test_dtypes_are_the_four_standard_ones():
    assert [np.dtype(d) for d in ALL] == list(_batched.SUPPORTED) == list(_batched_kernel.CTYPES)
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


def test_tile_choice_and_paths():
    bk = _batched_kernel
    assert bk.tile_for(1, 1) == 8
    assert bk.tile_for(8, 3) == 8
    assert bk.tile_for(9, 8) == 16
    assert bk.tile_for(16, 16) == 16
    assert bk.tile_for(17, 2) == 32
    assert bk.tile_for(32, 32) == 32
    assert bk.tile_for(33, 1) == 64
    assert bk.tile_for(64, 64) == 64
    assert bk.tile_for(65, 1000) == 64
    assert bk.choose(64, 64, False) == "small"
    assert bk.choose(1, 64, True) == "small"
    assert bk.choose(65, 64, False) == "tiled"
    assert bk.choose(64, 65, True) == "pointer-tiled"
    assert bk.choose(32, 32, False, batch=1, k=bk.LONG_K) == "small"
    assert bk.choose(32, 32, False, batch=1, k=bk.LONG_K + 1) == "tiled"
    assert bk.choose(32, 32, False, batch=2, k=10**6) == "small"
    assert bk.choose(32, 32, True, batch=1, k=10**6) == "small"
    big = 512
    assert big**3 == bk.LOOP_MIN_WORK
    assert bk.choose(big, big, True, batch=bk.LOOP_MAX_BATCH, k=big) == "pointer-loop"
    assert bk.choose(big, big, True, batch=bk.LOOP_MAX_BATCH + 1, k=big) == "pointer-tiled"
    assert bk.choose(big, big, True, batch=2, k=big - 1) == "pointer-tiled"
    assert bk.choose(big, big, True, batch=2, k=0) == "pointer-tiled"
    assert bk.choose(big, big, False, batch=2, k=big) == "tiled"


def test_streaming_kernel_choice():
    bk = _batched_kernel
    assert bk.stream_name(np.float32, 32) == "ra_rocblas_gemm_batched_stream<float, 32>"
    assert bk.stream_name(np.float64, 64) == "ra_rocblas_gemm_batched_stream<double, 64>"
    assert set(bk.STREAM) <= {np.dtype(d) for d in ALL}
    assert all(set(tiles) <= set(bk.TILES) for tiles in bk.STREAM.values())
    for dtype in ALL:
        for tile in bk.TILES:
            want = tile in bk.STREAM.get(np.dtype(dtype), ())
            assert bk.streams(dtype, tile, 5) == want
            assert not bk.streams(dtype, tile, 0)  # C := beta C runs the one-shot kernel
    assert bk.streams(np.float32, 32, 32) and not bk.streams(np.float32, 64, 64)  # 64: measured slower
    assert not bk.streams(np.float32, 8, 8)


@needs_cupy
def test_streaming_launch_grid_is_one_wave(monkeypatch):
    """The streaming kernel runs min(work items, one resident wave) blocks; the others their grid."""
    bk = _batched_kernel
    launched = []
    monkeypatch.setattr(bk, "_kernel", lambda name, device_id: (_RecordingKernel(name, launched), 396))
    monkeypatch.setattr(_launch, "on_device", lambda device_id: __import__("contextlib").nullcontext())
    one, zero = np.float32(1), np.float32(0)
    mem = (fake((10,), np.float32).data, None)
    repeats = [
        bk.launch_small(0, np.float32, 32, 32, 32, one, mem, 32, 1024, mem, 32, 1024, zero, mem, 32, 1024, 100000, 0),
        bk.launch_small(0, np.float32, 32, 32, 32, one, mem, 32, 1024, mem, 32, 1024, zero, mem, 32, 1024, 40, 0),
        bk.launch_small(0, np.float32, 32, 32, 0, one, mem, 32, 1024, mem, 32, 1024, zero, mem, 32, 1024, 100000, 0),
        bk.launch_small(0, np.float32, 8, 8, 8, one, mem, 8, 64, mem, 8, 64, zero, mem, 8, 64, 100000, 0)]
    want = [("ra_rocblas_gemm_batched_stream<float, 32>", (396,), (256,), 0, 19),
            ("ra_rocblas_gemm_batched_stream<float, 32>", (10,), (256,), 0, 19),
            ("ra_rocblas_gemm_batched<float, 32>", (25000,), (256,), 0, 19),
            ("ra_rocblas_gemm_batched<float, 8>", (6250,), (256,), 0, 19)]
    assert launched == want
    # the prepared repeats launch exactly what the first calls launched (here through the
    # stand-in's call, as NumPy values)
    launched.clear()
    for again in repeats:
        again(one, zero, 1 << 20, 1 << 21, 1 << 22)
        again(one, zero, 1 << 23, 1 << 24, 1 << 25)
    assert launched == [w for w in want for _ in range(2)]
    pointer_mode = (None, fake((10,), np.uint64))
    assert bk.launch_small(0, np.float32, 8, 8, 8, one, pointer_mode, 8, 0, pointer_mode, 8, 0, zero, pointer_mode,
                           8, 0, 10, 0) is None


def test_grid_counts_tiles_and_groups_of_matrices():
    bk = _batched_kernel
    assert bk.grid(32, 32, 100000, 32) == 25000
    assert bk.grid(8, 8, 100000, 8) == 6250
    assert bk.grid(8, 8, 17, 8) == 2
    assert bk.grid(16, 16, 5, 16) == 2
    assert bk.grid(64, 64, 7, 64) == 7
    assert bk.grid(130, 65, 3, 64) == 3 * 2 * 3
    with pytest.raises(ValueError, match="more than one launch takes"):
        bk.grid(64, 64, 2**31, 64)


@needs_cupy
def test_routes(monkeypatch):
    """Small matrices take the batched kernel; large strided ones the level-3 batch grid."""
    calls = []
    monkeypatch.setattr(_batched_kernel, "launch_small", lambda *a, **kw: calls.append(("small", a, kw)))
    monkeypatch.setattr(_level3, "_launch", lambda *a, **kw: calls.append(("level3", a, kw)))
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
    assert calls[0][1][-1] == _batched_kernel.TRANS_B            # flags 'NT'
    assert calls[2][1][6][0] is None and calls[2][1][6][1] is P[0]  # pointer mode: (None, A_array)
    # a few large products in pointer mode: one level-3 gemm each, on the host copies of the pointers
    calls.clear()
    host = [np.array([1 << 30, 1 << 31], np.uint64), np.array([1 << 32, 1 << 33], np.uint64),
            np.array([1 << 34, 1 << 35], np.uint64)]
    monkeypatch.setattr(_batched_kernel, "_host_pointers", lambda arrays, batch: host)
    rocblas.gemm_batched("T", "N", 600, 500, 700, 1.0, P[0], 700, P[1], 700, 0.5, P[2], 600, 2, dtype=np.float64)
    assert [c[0] for c in calls] == ["level3", "level3"]
    for i, (_, args, kw) in enumerate(calls):
        assert kw == {}
        assert args[2:5] == (600, 500, 700) and args[-1] == _level3.TRANS_A
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
    assert _batched.check_dtype("gemm_strided_batched", np.float16, half=True) == np.float16  # matrix units
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
