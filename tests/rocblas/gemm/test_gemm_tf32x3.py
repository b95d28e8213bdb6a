"""float32 gemm from three TF32 products (``rocblas/_gemm/tf32x3.py``) against NumPy float64.

GPU tests run on compute capability 9.0 only (the path's instructions exist there alone) and
force the path's plan through :func:`rocarray.rocblas.gemm`; results are compared with
``level3``'s float32 tolerance, and separately with a bound that only float32-grade products
meet: the whole product's relative error must stay near float32's unit roundoff for a long k,
where TF32 products alone (about 2^-11 per product) or sums left to the matrix units (a bias
toward zero growing with k) are 10 to 1000 times off. Infinities and NaNs must land where
float32 arithmetic puts them. CPU tests cover names, registration, the workspace, the layout of
the split pass, when the path is offered, and the setting that turns it off.
"""

import numpy as np
import pytest

from conftest import assert_close, random_array, to_device, to_host, wide
from level3_host import run_gemm, run_gemm_bias_activation

from rocblas_fixtures import fresh_prepared_launches, record_launches  # noqa: F401  (autouse)

from rocarray._core import compile as _compile, config, tuning, workspace
from rocarray.rocblas._gemm import mma as _mma, plan as _plan, tensor_maps as _tensor_maps, tiles as _tiles, wgmma as _wgmma
from rocarray.rocblas._gemm import tf32x3 as x3
import rocarray.rocblas as rocblas



def _ids(v):
    return str(v)


SM90 = dict(is_hip=False, cc_major=9, cc_minor=0, multiprocessors=132, shared_limit=232448)
#: The path's square tiles: the split inside the kernel, and the split pass with the pieces kernel;
#: then the short tiles (split inside), 64 x 128 and 128 x 64.
FUSED, SPLIT, SHORT_M, SHORT_N = x3.TILES


# --------------------------------------------------------------------------------------------
# CPU
# --------------------------------------------------------------------------------------------

def test_kernel_names_and_registration():
    names = _compile.registered(_wgmma.SOURCE)
    assert x3.kernel_name(128) == "ra_rocblas_gemm_wgmma<float, true, true, 128>"
    for tile in x3.TILES:
        if not tile.fused:
            assert x3.kernel_name(tile[1]) in names
    # the split inside the kernel: op(A) k-major for 'T', op(B) for 'N'; then the block tile
    assert x3.fused_kernel_name(False, False) == "ra_rocblas_gemm_wgmma_x3<false, true, 128, 128, false>"
    assert x3.fused_kernel_name(True, True, 64, 128, True) == "ra_rocblas_gemm_wgmma_x3<true, false, 64, 128, true>"
    for ta in (False, True):
        for tb in (False, True):
            for tile in x3.TILES:
                if tile.fused:
                    assert x3.fused_kernel_name(ta, tb, tile[0], tile[1]) in names
                    # the blocked form where an operand is mn-major ('T', 'N' has none)
                    blocked = x3.fused_kernel_name(ta, tb, tile[0], tile[1], True)
                    assert (blocked in names) == (not (ta and not tb))
    assert len(x3.fused_kernel_names()) == 3 * (4 + 3)
    assert x3.FINISH_KERNEL in names
    text = _compile.read_text(_wgmma.SOURCE)
    assert f'extern "C" __global__ void RA_LAUNCH_BOUNDS({x3.SPLIT_BLOCK})\n{x3.SPLIT_KERNEL}(' in text
    assert f"#define RA_GEMM_WG_SPLIT_TILE {x3.SPLIT_TILE}" in text
    assert f'extern "C" __global__ void RA_LAUNCH_BOUNDS({x3.SPLIT_BLOCK})\n{x3.GUARD_KERNEL}(' in text


def test_tile_names_and_shape():
    fused, split = x3.TILES[:2]
    assert split == (128, 128, 32, 0) and split.name == "x3_128x128" and split.x3 and not split.mma
    assert fused == (128, 128, 32, 1) and fused.name == "x3f_128x128" and fused.fused and not split.fused
    assert SHORT_M == (64, 128, 32, 1) and SHORT_M.name == "x3f_64x128" and SHORT_M.fused
    assert SHORT_N == (128, 64, 32, 1) and SHORT_N.name == "x3f_128x64" and SHORT_N.fused
    assert x3.fused_tile(64, 128) is SHORT_M and x3.fused_tile(128, 128) is FUSED
    assert x3.FUSED_SHAPES == tuple((t[0], t[1]) for t in x3.TILES if t.fused)
    assert _tiles.TileChoice(split, 1).name == "x3_128x128.s1"
    assert _tiles.TileChoice(fused, 1) != _tiles.TileChoice(split, 1)  # distinct keys of the prepared runs
    assert x3.BK == 32 and _wgmma.slot_k(2) == 64


def test_workspace_and_leading_dimension():
    assert [x3.leading(k) for k in (1, 4, 5, 8, 9)] == [4, 4, 8, 8, 12]
    assert x3.workspace_bytes(8192, 8192, 8192) == 2**30  # hi and lo of A and B
    assert x3.workspace_bytes(10, 20, 5, batch=3) == 2 * 4 * 30 * 8 * 3


def test_shared_memory_of_the_ring():
    # three slots of A_hi, A_lo, B_hi, B_lo (128 rows of 128 bytes each), barriers, alignment
    assert _wgmma.shared_bytes(128, 3, x3.PIECES) == 3 * (4 * 128 * 128 + 16) + 1024
    assert _wgmma.shared_bytes(128, 3, x3.PIECES) <= SM90["shared_limit"]
    assert _wgmma.shared_bytes(256, 4) == 4 * (384 * 128 + 16) + 1024  # the 16-bit ring
    # the split inside the kernel: three raw slots (A and B, 16 KiB each), two pieces buffers
    assert x3.fused_shared_bytes() == 3 * (2 * 16384 + 8) + 2 * 4 * 16384 + 1024
    assert x3.fused_shared_bytes() <= SM90["shared_limit"] < x3.fused_shared_bytes(4)
    # the short tiles: raw slots of 64 + 128 rows (24 KiB), pieces buffers of 48 KiB; the
    # deepest ring that fits
    for tm, tn in ((64, 128), (128, 64)):
        assert x3.fused_shared_bytes(tile_m=tm, tile_n=tn) == 5 * (24576 + 8) + 2 * 2 * 24576 + 1024
        stages = x3.FUSED_STAGES[(tm, tn)]
        assert x3.fused_shared_bytes(stages, tm, tn) <= SM90["shared_limit"] < x3.fused_shared_bytes(stages + 1, tm, tn)


def test_split_pass_reads_along_the_contiguous_dimension():
    # op(A)(i, kk) is A[i + kk lda] ('N') or A[kk + i lda] ('T'); op(B)(kk, j) is B[kk + j ldb]
    # ('N') or B[j + kk ldb] ('T'), read as rows (i or j) x k
    assert x3.operand_strides(False, 7, True) == (1, 7, False)
    assert x3.operand_strides(True, 7, True) == (7, 1, True)
    assert x3.operand_strides(False, 9, False) == (9, 1, True)
    assert x3.operand_strides(True, 9, False) == (1, 9, False)


def test_tma_maps_of_four_byte_pieces():
    assert _tensor_maps.box_shape(True, 128, 4) == (32, 128)
    assert _tensor_maps.box_shape(True, 256) == (64, 256)
    assert _tensor_maps.box_shape(False, 128) == (64, 64) and _tensor_maps.box_shape(False, 128, 4) == (32, 32)
    # pieces of a 300 x 70 operand: ld 72, hi and lo of 3 batch entries as 6 planes
    assert _tensor_maps.operand_geometry(True, 300, 70, 72, 300 * 72, 6, 4) == ((70, 300, 6), (288, 288 * 300))


@pytest.fixture
def sm90(monkeypatch):
    """An sm_90 device's facts for the path's checks (nothing is launched)."""
    monkeypatch.setattr(x3, "device_facts", lambda device_id: dict(SM90))
    monkeypatch.delenv("ROCARRAY_GEMM_FLOAT32", raising=False)
    return SM90


def test_usable_on_sm90_for_big_enough_problems(sm90, monkeypatch):
    assert x3.usable(0, 1024, 1024, 1024)
    assert x3.usable(0, 64, 64, 64, batch=4096)  # the flops of the whole batch count
    assert not x3.usable(0, 512, 512, 512)  # 2^28 flops: below MIN_FLOPS
    assert not x3.usable(0, 2**20, 2**20, 0)  # k == 0: nothing to read
    assert not x3.usable(0, 2**31, 2, 1024)  # a size past the 32-bit TMA coordinates
    monkeypatch.setattr(x3, "MAX_WORKSPACE_BYTES", 2**20)
    assert not x3.usable(0, 1024, 1024, 1024)  # the pieces would not fit the workspace cap


@pytest.mark.parametrize("facts", [dict(SM90, cc_major=8), dict(SM90, cc_minor=9), dict(SM90, is_hip=True),
                                   dict(SM90, shared_limit=101376)], ids=["sm_80", "sm_89", "hip", "small-smem"])
def test_not_usable_elsewhere(monkeypatch, facts):
    monkeypatch.setattr(x3, "device_facts", lambda device_id: facts)
    assert not x3.usable(0, 1024, 1024, 1024)


def test_setting_turns_the_path_off(sm90, monkeypatch):
    monkeypatch.setenv("ROCARRAY_GEMM_FLOAT32", "simt")
    assert config.gemm_float32() == "simt" and not x3.usable(0, 1024, 1024, 1024)
    monkeypatch.setenv("ROCARRAY_GEMM_FLOAT32", " TF32x3 ")
    assert config.gemm_float32() == "tf32x3" and x3.usable(0, 1024, 1024, 1024)
    monkeypatch.setenv("ROCARRAY_GEMM_FLOAT32", "")
    assert config.gemm_float32() == "tf32x3"
    monkeypatch.setenv("ROCARRAY_GEMM_FLOAT32", "fast")
    with pytest.raises(ValueError, match="ROCARRAY_GEMM_FLOAT32 must be 'tf32x3' or 'simt', got 'fast'"):
        x3.usable(0, 1024, 1024, 1024)


def test_remembered_choices_follow_the_setting(monkeypatch):
    monkeypatch.delenv("ROCARRAY_GEMM_FLOAT32", raising=False)
    before = tuning.state_token()
    monkeypatch.setenv("ROCARRAY_GEMM_FLOAT32", "simt")
    assert tuning.state_token() != before


def test_heuristic_and_candidates_offer_the_path_first():
    f32 = np.dtype("float32")
    assert _plan.heuristic(f32, 4096, 4096, 4096, 132, 1, "cuda", x3=True) == _tiles.TileChoice(SPLIT, 1)
    assert _plan.heuristic(f32, 1000, 1000, 1000, 132, 1, "cuda", x3=True) == _tiles.TileChoice(FUSED, 1)
    assert x3.heuristic_tile(200, 8192, 1, 132) is FUSED and x3.heuristic_tile(2048, 2048, 1, 132) is SPLIT
    # a side of at most 64: the short tile along it
    assert x3.heuristic_tile(64, 8192, 1, 132) is SHORT_M and x3.heuristic_tile(8192, 33, 1, 132) is SHORT_N
    assert x3.heuristic_tile(64, 64, 64, 132) is FUSED and x3.heuristic_tile(65, 8192, 1, 132) is FUSED
    assert _plan.heuristic(f32, 4096, 4096, 4096, 132, 1, "cuda", x3=False)[0] in _tiles.TILES[f32]
    plans = _plan.candidates(f32, 4096, 4096, 4096, 132, "cuda", x3=True)
    assert plans[:2] == [_tiles.TileChoice(x3.TILES[0], 1), _tiles.TileChoice(x3.TILES[1], 1)]
    assert plans[2:] == _plan.candidates(f32, 4096, 4096, 4096, 132, "cuda")
    assert len({p.name for p in plans}) == len(plans)
    # the short tiles where one square tile covers that side
    for (m, n), short in {(64, 8192): [SHORT_M], (8192, 100): [SHORT_N], (128, 128): [SHORT_M, SHORT_N],
                          (129, 4096): []}.items():
        plans = _plan.candidates(f32, m, n, 8192, 132, "cuda", x3=True)
        assert [p[0] for p in plans[:2 + len(short)]] == [FUSED, SPLIT] + short
        assert plans[2 + len(short):] == _plan.candidates(f32, m, n, 8192, 132, "cuda")


class _FakeCupy:
    """The two CuPy calls of a prepared run: a workspace at a fixed address and a memset."""

    class _Array:
        def __init__(self, size, dtype):
            self.size, self.dtype = size, dtype
            self.data = type("Pointer", (), {"ptr": 1 << 30})()

    def __init__(self, record):
        self.record = record
        runtime = type("Runtime", (), {"memsetAsync": lambda _, *a: record.append(("memset",) + a)})()
        stream = type("Stream", (), {"ptr": 0})()
        self.cuda = type("Cuda", (), {"runtime": runtime, "get_current_stream": staticmethod(lambda: stream)})()

    def empty(self, size, dtype):
        self.record.append(("empty", size))
        return self._Array(size, dtype)


def _record_launches(monkeypatch):
    """Stand-ins for the kernels, CuPy and the tensor maps that record every launch."""
    record = []
    record_launches(monkeypatch, _wgmma, wave=1, calls=record)
    monkeypatch.setattr(_mma, "device_facts", lambda device_id: dict(SM90))
    monkeypatch.setattr(_wgmma.backend, "cupy", lambda: _FakeCupy(record))
    monkeypatch.setattr(_tensor_maps, "operand_map", lambda *a: ("map",) + a)
    monkeypatch.setattr(_tensor_maps, "blocked_operand_map", lambda *a: ("blocked",) + a)
    # split k's sums: a stand-in, so that no fake buffer (nor the fake CuPy) stays cached
    partials = type("Buffer", (), {"data": type("Pointer", (), {"ptr": 1 << 31})()})()
    monkeypatch.setattr(workspace, "workspaces", type("Owner", (), {"scratch": lambda self, *a: partials})())
    return record


def test_prepared_run_launch_arguments(sm90, monkeypatch):
    # the order and values of every launch's arguments, against the kernels' signatures
    record = _record_launches(monkeypatch)
    m, n, k = 300, 200, 70  # k of 70: pieces 72 wide, 3 k tiles, one part
    run = x3.prepare_run(0, SPLIT, m, n, k, m, n, m + 1, False, True, 2, 1, (0, 0, 0))
    run(np.float32(1.5), np.float32(0.5), 0x1000, 0x2000, 0x3000, 0x4000)
    ld, base = 72, 1 << 30
    a_pieces, b_pieces = base, base + 4 * 2 * m * ld
    a_inf = b_pieces + 4 * 2 * n * ld
    assert record[0] == ("empty", 2 * (m + n) * ld + 2)
    assert record[1] == ("memset", a_inf, 0, 8, 0)
    (n_split, _, _, b_args, _), (_, _, _, a_args, _) = record[2], record[3]
    assert n_split == x3.SPLIT_KERNEL
    # B ('T': op(B)(kk, j) = B[j + kk ldb]) first, guarded by A's flag, noting its own
    assert b_args == (n, k, 1, 0x2000, 1, n, 0, 0, b_pieces, ld, a_inf, a_inf + 4)
    assert a_args == (m, k, 1, 0x1000, 1, m, 0, 0, a_pieces, ld, a_inf + 4, a_inf)
    assert record[4][0] == x3.GUARD_KERNEL and record[4][3] == (b_pieces, n * ld, 1, a_inf)
    name, grid, block, args, shared = record[5]
    assert name == x3.kernel_name(128) and block == (_wgmma.BLOCK,) and grid == (6, 1)
    assert shared == _wgmma.shared_bytes(128, 3, x3.PIECES)
    assert args[0] == ("map", a_pieces, True, m, k, ld, m * ld, 2, 128, 4)
    assert args[1] == ("map", b_pieces, True, n, k, ld, n * ld, 2, 128, 4)
    assert args[2:12] == (m, n, k, 1, 1.5, 0.5, 0x3000, m + 1, 0, 3)
    assert args[12:] == (1, 3, 0, 0x4000, 2, x3.PROMOTE_SLOTS) and len(record) == 6
    assert record[2][1] == (7 * 2,) and record[3][1] == (10 * 2,)  # tiles of 32 rows x 64 k


@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_fused_run_copies_the_operands_themselves(sm90, monkeypatch, trans_a, trans_b):
    # aligned operands: one launch of the kernel that splits inside, its tensor maps over A and B
    # as float32 (k-major for op(A) = A^T and op(B) = B), no workspace, no split pass
    record = _record_launches(monkeypatch)
    m, n, k = 300, 200, 72
    lda, ldb = (k if trans_a else m) + 4, (n if trans_b else k) + 8
    run = x3.prepare_run(0, FUSED, m, n, k, lda, ldb, m, trans_a, trans_b, 0)
    run(np.float32(2), np.float32(0), 0x1000, 0x2000, 0x3000, 0)
    assert len(record) == 1
    name, grid, block, args, shared = record[0]
    assert name == x3.fused_kernel_name(trans_a, trans_b)
    assert block == (x3.FUSED_BLOCK,) and grid == (6, 1) and shared == x3.fused_shared_bytes()
    assert args[0] == ("map", 0x1000, trans_a, m, k, lda, 0, 1, 128, 4)
    assert args[1] == ("map", 0x2000, not trans_b, n, k, ldb, 0, 1, 128, 4)
    assert args[2:12] == (m, n, k, 1, 2.0, 0.0, 0x3000, m, 0, x3.FUSED_STAGES[(128, 128)])
    assert args[12:] == (1, 3, 0, 0, 0, x3.PROMOTE_SLOTS)


@pytest.mark.parametrize("tile", [SHORT_M, SHORT_N], ids=lambda t: t.name)
def test_short_tiles_launch_their_kernel_with_their_boxes(sm90, monkeypatch, tile):
    # 64 x 8192 x 8192 (and its transpose): 64 tiles of C in 2 k parts (128 blocks), the finish
    record = _record_launches(monkeypatch)
    tm, tn = tile[0], tile[1]
    m, n, k = (64, 8192, 8192) if tm == 64 else (8192, 64, 8192)
    run = x3.prepare_run(0, tile, m, n, k, m, k, m, False, False, 0)
    run(np.float32(1), np.float32(0), 0x1000, 0x2000, 0x3000, 0)
    name, grid, block, args, shared = record[0]
    assert block == (x3.FUSED_BLOCK,)
    assert grid == (128, 1) and shared == x3.fused_shared_bytes(x3.FUSED_STAGES[(tm, tn)], tm, tn)
    assert name == x3.fused_kernel_name(False, False, tm, tn, True)  # m a multiple of 32: one box a tile
    assert args[0] == ("blocked", 0x1000, m, k, m, 0, 1, tm)
    assert args[1] == ("map", 0x2000, True, n, k, k, 0, 1, tn, 4)
    assert args[11:14] == (x3.FUSED_STAGES[(tm, tn)], 2, 128)  # stages, parts, k tiles a part
    assert record[1][0] == x3.FINISH_KERNEL and len(record) == 2


def test_short_tiles_fall_back_to_the_square_pieces_kernel(sm90, monkeypatch):
    record = _record_launches(monkeypatch)
    run = x3.prepare_run(0, SHORT_N, 300, 50, 72, 301, 72, 300, False, False, 0)
    run(np.float32(1), np.float32(0), 0x1000, 0x2000, 0x3000, 0)
    names = [r[0] for r in record if r[0] not in ("empty", "memset")]
    assert names == [x3.SPLIT_KERNEL, x3.SPLIT_KERNEL, x3.GUARD_KERNEL, x3.kernel_name(128)]


@pytest.mark.parametrize("lda, ldb, a_address, b_address", [(302, 72, 0x1004, 0x2000), (301, 72, 0x1000, 0x2000),
                                                            (300, 72, 0x1000, 0x2008), (300, 74, 0x1000, 0x2000)])
def test_fused_run_takes_the_split_pass_for_unaligned_operands(sm90, monkeypatch, lda, ldb, a_address, b_address):
    record = _record_launches(monkeypatch)
    m, n, k = 300, 200, 72
    run = x3.prepare_run(0, FUSED, m, n, k, lda, ldb, m, False, False, 0)
    run(np.float32(1), np.float32(0), a_address, b_address, 0x3000, 0)
    names = [r[0] for r in record if r[0] not in ("empty", "memset")]
    assert names == [x3.SPLIT_KERNEL, x3.SPLIT_KERNEL, x3.GUARD_KERNEL, x3.kernel_name(128)]


@pytest.mark.parametrize("shared", ["A", "B", "both"])
def test_fused_run_copies_a_matrix_shared_by_the_batch_per_entry(sm90, monkeypatch, shared):
    # a zero batch stride (a convolution's weights over its images) has no tensor map: one padded-copy
    # launch writes the matrix once per entry into a workspace, then the kernel that splits inside
    # runs on the copies (no split pass)
    record = _record_launches(monkeypatch)
    m, n, k, batch = 300, 200, 72, 3
    strides = (0 if shared in ("A", "both") else m * k, 0 if shared in ("B", "both") else k * n, m * n)
    run = x3.prepare_run(0, FUSED, m, n, k, m, k, m, False, False, 0, batch=batch, strides=strides)
    run(np.float32(1), np.float32(0), 0x1000, 0x2000, 0x3000, 0)
    names = [r[0] for r in record]
    copies = 2 if shared == "both" else 1
    assert names == [_wgmma.PACK_KERNEL] * copies + [x3.fused_kernel_name(False, False)]
    base = 1 << 31  # the stand-in workspace
    a_address, b_address = 0x1000, 0x2000
    offset = 0
    for name, grid, block, args, _ in record[:copies]:
        source = 0x1000 if shared in ("A", "both") and offset == 0 else 0x2000
        rows, cols = (m, k) if source == 0x1000 else (k, n)   # stored A is m x k, B k x n ('N', 'N')
        span = 2 * rows * cols                                  # ld == rows: the span is the matrix
        assert block == (_wgmma.AUX_BLOCK,) and grid == (-(-span * batch // _wgmma.AUX_BLOCK), 1, 1)[:len(grid)]
        assert args == (span, 1, batch, source, span, 0, base + offset, span, span)
        if source == 0x1000:
            a_address = base + offset
        else:
            b_address = base + offset
        offset += 4 * rows * cols * batch
    kernel_args = record[-1][3]
    a_stride = m * k if shared in ("A", "both") else strides[0]
    b_stride = k * n if shared in ("B", "both") else strides[1]
    assert kernel_args[0] == ("map", a_address, False, m, k, m, a_stride, batch, 128, 4)
    assert kernel_args[1] == ("map", b_address, True, n, k, k, b_stride, batch, 128, 4)


def test_shared_copies_layout():
    # stored shapes, leading dimensions, strides: the copies' strides and workspace offsets
    strides, copies, nbytes = x3.shared_copies(((300, 72), (72, 200)), (304, 76), (0, 0, 9), 3)
    assert strides == (304 * 72, 76 * 200, 9)
    assert copies == [(0, 300, 72, 304, 0), (1, 72, 200, 76, 4 * 304 * 72 * 3)]
    assert nbytes == 4 * 3 * (304 * 72 + 76 * 200)
    assert x3.shared_copies(((300, 72), (72, 200)), (304, 76), (0, 0, 9), 1) == ((0, 0, 9), [], 0)
    assert x3.shared_copies(((300, 72), (72, 200)), (304, 76), (8, 0, 9), 2)[1] == [(1, 72, 200, 76, 0)]
    assert x3.stored_shape(True, 5, 7) == (7, 5) and x3.stored_shape(False, 5, 7) == (5, 7)


def test_fused_run_takes_the_split_pass_for_an_unaligned_matrix_shared_by_the_batch(sm90, monkeypatch):
    # the copies keep the leading dimension: one TMA cannot step (ldb = 74) still takes the split pass
    record = _record_launches(monkeypatch)
    m, n, k = 300, 200, 74
    run = x3.prepare_run(0, FUSED, m, n, k, m, k, m, False, False, 0, batch=3, strides=(m * k, 0, m * n))
    run(np.float32(1), np.float32(0), 0x1000, 0x2000, 0x3000, 0)
    names = [r[0] for r in record if r[0] not in ("empty", "memset")]
    assert names == [x3.SPLIT_KERNEL, x3.SPLIT_KERNEL, x3.GUARD_KERNEL, x3.kernel_name(128)]


def test_blocked_maps_of_mn_major_operands():
    # 4-D (32 mn, k, mn / 32, batch): the contiguous 128 bytes, then k at ld, the blocks of 32 mn
    # at 128 bytes, the batch at its stride; the box is the whole rows x 32 tile
    assert _tensor_maps.blocked_geometry(8192, 8192, 8192, 0, 1, 128) == (
        (32, 8192, 256, 1), (4 * 8192, 128, 4 * 8192 * 8192), (32, 32, 4, 1))
    assert _tensor_maps.blocked_geometry(64, 300, 68, 68 * 300 + 4, 3, 64) == (
        (32, 300, 2, 3), (4 * 68, 128, 4 * (68 * 300 + 4)), (32, 32, 2, 1))
    with pytest.raises(ValueError, match="multiple of 32"):
        _tensor_maps.blocked_operand_map(0x1000, 100, 64, 100, 0, 1, 128)


@pytest.mark.parametrize("a_kmajor, b_kmajor, m, n, blocked", [
    (False, True, 64, 100, True), (False, True, 100, 64, False), (True, True, 64, 64, False),
    (True, False, 100, 8192, True), (False, False, 96, 8192, True), (False, False, 96, 8200, False)])
def test_blocked_maps_where_every_mn_major_operand_allows(monkeypatch, a_kmajor, b_kmajor, m, n, blocked):
    monkeypatch.setattr(_tensor_maps, "operand_map", lambda *a: ("map",) + a)
    monkeypatch.setattr(_tensor_maps, "blocked_operand_map", lambda *a: ("blocked",) + a)
    assert x3.blocked(a_kmajor, b_kmajor, m, n) == blocked
    for kmajor, mn in ((a_kmajor, m), (b_kmajor, n)):
        got = x3.fused_operand_map(0x1000, kmajor, mn, 96, 8192, 0, 1, 128, blocked)
        assert got[0] == ("blocked" if blocked and not kmajor else "map")


def test_fused_alignment_rule():
    assert x3.fused_aligned(0x1000, 8, 0, 1) and x3.fused_aligned(0x1010, 4, 7, 1)  # one matrix: no stride
    assert not x3.fused_aligned(0x1008, 8, 0, 1) and not x3.fused_aligned(0x1000, 6, 0, 1)
    assert x3.fused_aligned(0x1000, 8, 64, 3) and not x3.fused_aligned(0x1000, 8, 66, 3)
    assert not x3.fused_aligned(0x1000, 8, 0, 3)  # one matrix shared by the batch: no tensor map


@pytest.mark.parametrize("lda, a_address, aligned", [(72, 0x1000, True), (72, 0x1004, False), (73, 0x1000, False)])
def test_split_mode_follows_layout_and_alignment(sm90, monkeypatch, lda, a_address, aligned):
    # A 'T' and B 'N' hold k contiguously: rows of 16 bytes (address and leading dimension) take
    # the 16-byte loads; B's leading dimension of 70 never does
    record = _record_launches(monkeypatch)
    m, n, k = 100, 50, 70
    run = x3.prepare_run(0, SPLIT, m, n, k, lda, 70, m, True, False, 0)
    run(np.float32(1), np.float32(0), a_address, 0x2000, 0x3000, 0)
    (_, _, _, b_args, _), (_, _, _, a_args, _) = record[2], record[3]
    assert b_args[4:8] == (70, 1, 0, x3.SPLIT_K_CONTIGUOUS)
    want = x3.SPLIT_K_CONTIGUOUS | (x3.SPLIT_ROWS_ALIGNED if aligned else 0)
    assert a_args[3] == a_address and a_args[4:8] == (lda, 1, 0, want)
    for args in (a_args, b_args):
        assert args[7].dtype == np.int32


def test_split_source_declares_the_host_constants():
    text = _compile.read_text(_wgmma.SOURCE)
    assert f"#define RA_GEMM_WG_SPLIT_TILE_K {x3.SPLIT_TILE_K}" in text
    assert f"#define RA_GEMM_WG_SPLIT_K_CONTIGUOUS {x3.SPLIT_K_CONTIGUOUS}" in text
    assert f"#define RA_GEMM_WG_SPLIT_ROWS_ALIGNED {x3.SPLIT_ROWS_ALIGNED}" in text


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def _require_path():
    device = to_device(np.zeros(1, np.float32)).data.device_id
    facts = _mma.device_facts(device)
    if facts["is_hip"] or (facts["cc_major"], facts["cc_minor"]) != (9, 0):
        pytest.skip("the three-TF32-product kernel runs on compute capability 9.0 only")
    return device


@pytest.fixture(params=x3.TILES, ids=lambda t: t.name)
def forced(request, monkeypatch):
    """Every float32 gemm of the test takes the path's plan, for each of its two tiles (other
    dtypes their own plans)."""
    _require_path()
    plan = _tiles.TileChoice(request.param, 1)
    choose = _plan.choose

    def choose_x3(device_id, dtype, *args, **kwargs):
        if np.dtype(dtype) == np.float32:
            return plan
        return choose(device_id, dtype, *args, **kwargs)
    monkeypatch.setattr(_plan, "choose", choose_x3)
    return plan


@pytest.fixture
def split_pass_runs(monkeypatch):
    """The calls that ran the split pass (the split tile's, or the fused tile's fallback)."""
    calls = []
    prepare = x3._prepare_split_run

    def spy(*args, **kwargs):
        run = prepare(*args, **kwargs)

        def counted(*call):
            calls.append(call)
            return run(*call)
        return counted
    monkeypatch.setattr(x3, "_prepare_split_run", spy)
    return calls


def _took_the_forced_kernel(forced, split_pass_runs):
    return bool(split_pass_runs) != forced[0].fused


# sizes below, at and across the 128-row tile and the 32-deep slot, padded leading dimensions
# (odd ones: the fused tile takes the split pass for them)
SHAPES = [(1, 1, 1, (0, 0, 0)), (7, 33, 129, (1, 2, 3)), (129, 200, 33, (0, 0, 0)), (200, 129, 777, (3, 0, 1)),
          (128, 256, 64, (0, 0, 0))]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", SHAPES, ids=_ids)
@pytest.mark.parametrize("trans", ["NN", "NT", "TN", "TT", "CC"])
def test_matches_numpy(rng, forced, trans, shape):
    m, n, k, extra = shape
    run_gemm(rng, "float32", trans, m, n, k, extra)


def _aligned_extra(trans, m, n, k, pad=0):
    """Leading dimensions (above the minimum) that make A's and B's columns 16-byte aligned."""
    ar = m if trans[0] == "N" else k
    br = k if trans[1] == "N" else n
    return (-max(1, ar) % 4 + 4 * pad, -max(1, br) % 4 + 4 * pad, pad)


# shapes with every edge of the kernel's tiles and the raw boxes (32 rows of k, 32 of mn), with
# aligned columns: the fused tile splits inside the kernel for all of them (where m or n is a
# multiple of 32, an mn-major operand along it comes through its 4-D map)
ALIGNED_SHAPES = [(1, 1, 1, 0), (7, 33, 129, 1), (129, 200, 33, 0), (200, 129, 777, 2), (132, 260, 36, 0),
                  (33, 31, 4100, 0), (64, 392, 2000, 0), (392, 40, 3001, 1), (96, 160, 1000, 1), (32, 288, 333, 0)]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", ALIGNED_SHAPES, ids=_ids)
@pytest.mark.parametrize("trans", ["NN", "NT", "TN", "TT"])
def test_aligned_operands_match_numpy(rng, forced, split_pass_runs, trans, shape):
    m, n, k, pad = shape
    run_gemm(rng, "float32", trans, m, n, k, _aligned_extra(trans, m, n, k, pad))
    assert _took_the_forced_kernel(forced, split_pass_runs)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TT"])
def test_beta_zero_does_not_read_c(rng, forced, trans):
    run_gemm(rng, "float32", trans, 65, 33, 20, beta=0, poison=True)


def _product_on_device(a, b, trans):
    """op(A) op(B) for the host float32 matrices a = op(A) and b = op(B), stored column-major as
    ``trans`` says, into a NaN-poisoned C (alpha 1, beta 0), as float64 on the host."""
    (m, k), n = a.shape, b.shape[1]
    sa = np.asfortranarray(a if trans[0] == "N" else a.T)
    sb = np.asfortranarray(b if trans[1] == "N" else b.T)
    da, db = to_device(sa.ravel(order="F")), to_device(sb.ravel(order="F"))
    dc = to_device(np.full(m * n, np.nan, np.float32))
    rocblas.gemm(trans[0], trans[1], m, n, k, 1.0, da, sa.shape[0], db, sb.shape[0], 0.0, dc, m)
    return wide(to_host(dc)).reshape(n, m).T


def _relative_error(rng, m, n, k, trans="NN"):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    got = _product_on_device(a, b, trans)
    want = wide(a) @ wide(b)
    return np.linalg.norm(got - want) / np.linalg.norm(want)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TN"])
def test_products_have_float32_accuracy_for_long_k(rng, forced, trans):
    # float32 multiply-adds give about 6e-7 here; TF32 products alone about 3e-4, and sums left
    # to the matrix units over the whole k (their truncating adds) about 3e-5 at k = 4096
    err = _relative_error(rng, 256, 256, 4096, trans)
    assert err < 2e-6, err


@pytest.mark.gpu
def test_split_k_parts(rng, forced):
    m, n, k = 132, 120, 20000
    parts, _ = _wgmma.splits(m, n, k, 1, 128, _mma.device_facts(0)["multiprocessors"], x3.BK)
    assert parts > 1
    run_gemm(rng, "float32", "NT", m, n, k)
    assert _relative_error(rng, m, n, k) < 2e-6


@pytest.mark.gpu
@pytest.mark.parametrize("m, pads", [(70, (5, 7, 3)), (72, (4, 8, 3)), (64, (4, 8, 3))], ids=_ids)
def test_strided_batches(rng, forced, m, pads):
    # the second and third: 16-byte aligned batch strides (the fused tiles' kernel, the third with
    # op(A) through its 4-D map; the first takes the split pass)
    n, k, batch = 90, 300, 3
    sa, sb, sc = m * k + pads[0], k * n + pads[1], m * n + pads[2]
    a, b = random_array(rng, sa * batch, "float32"), random_array(rng, sb * batch, "float32")
    c = random_array(rng, sc * batch, "float32")
    dc = to_device(c)
    device = dc.data.device_id
    _plan.launch(device, np.dtype("float32"), m, n, k, np.float32(1.25), to_device(a).data, m, to_device(b).data, k,
                 np.float32(0.5), dc.data, m, 0, batch, sa, sb, sc)
    got = to_host(dc)
    for i in range(batch):
        am = wide(a[i * sa:i * sa + m * k]).reshape(k, m).T
        bm = wide(b[i * sb:i * sb + k * n]).reshape(n, k).T
        cm = wide(c[i * sc:i * sc + m * n]).reshape(n, m).T
        want = 1.25 * am @ bm + 0.5 * cm
        assert_close(wide(got[i * sc:i * sc + m * n]).reshape(n, m).T, want, "float32", k,
                     atol_scale=float(np.max(1.25 * np.abs(am) @ np.abs(bm) + 0.5 * np.abs(cm))))
        np.testing.assert_array_equal(got[i * sc + m * n:(i + 1) * sc], c[i * sc + m * n:(i + 1) * sc])


@pytest.mark.gpu
@pytest.mark.parametrize("shared", ["A", "B"])
def test_batch_sharing_one_matrix(rng, forced, shared):
    # a zero batch stride (one B for every entry, as a convolution's weights; or one A): no tensor
    # map has it (the fused tiles copy it per entry, the split pass splits it per entry)
    m, n, k, batch = 64, 96, 128, 3
    sa, sb = (0, k * n) if shared == "A" else (m * k, 0)
    a = random_array(rng, m * k * (1 if sa == 0 else batch), "float32")
    b = random_array(rng, k * n * (1 if sb == 0 else batch), "float32")
    dc = to_device(np.full(m * n * batch, np.nan, np.float32))
    _plan.launch(dc.data.device_id, np.dtype("float32"), m, n, k, np.float32(1), to_device(a).data, m,
                 to_device(b).data, k, np.float32(0), dc.data, m, 0, batch, sa, sb, m * n)
    got = to_host(dc)
    for i in range(batch):
        am = wide(a[i * sa:i * sa + m * k]).reshape(k, m).T
        bm = wide(b[i * sb:i * sb + k * n]).reshape(n, k).T
        assert_close(wide(got[i * m * n:(i + 1) * m * n]).reshape(n, m).T, am @ bm, "float32", k,
                     atol_scale=float(np.max(np.abs(am) @ np.abs(bm))))


def _assert_special_values_match(got, want):
    """NaNs and infinities where float64 puts them; returns where ``want`` is finite (most of it)."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
    finite = np.isfinite(want)
    assert finite.sum() > want.size // 2
    return finite


@pytest.mark.gpu
def test_infinities_and_nans_land_where_float32_puts_them(rng, forced, split_pass_runs):
    m, n, k = 40, 30, 52
    # small integers: exact in TF32, so every low piece is zero, the case the split treats apart
    a = rng.integers(1, 4, (m, k)).astype(np.float32) * rng.choice([-1, 1], (m, k)).astype(np.float32)
    b = rng.integers(1, 4, (k, n)).astype(np.float32) * rng.choice([-1, 1], (k, n)).astype(np.float32)
    a[0, 3] = np.inf
    a[1, 4] = -np.inf
    a[2, 5] = np.nan
    b[3, 7] = 0.0  # C(0, 7): inf * 0 -> NaN
    b[6, 9] = -np.inf  # column 9 of C: -inf * a(i, 6), NaN in rows 0 and 1 (inf - inf) or 2
    b[8, 11] = np.float32(1.5e-30)  # a tiny finite value against an infinity: C(0, 11) stays inf
    a[3, 8] = np.inf
    da, db = to_device(np.asfortranarray(a).ravel(order="F")), to_device(np.asfortranarray(b).ravel(order="F"))
    dc = to_device(np.full(m * n, np.nan, np.float32))
    rocblas.gemm("N", "N", m, n, k, 1.0, da, m, db, k, 0.0, dc, m)
    got = wide(to_host(dc)).reshape(n, m).T
    with np.errstate(invalid="ignore", over="ignore"):
        want = wide(a) @ wide(b)
    finite = _assert_special_values_match(got, want)
    # with infinities about, zero low pieces carry 2^-126 (the guard): finite sums stay within it
    np.testing.assert_allclose(got[finite], want[finite], rtol=0, atol=1e-30)
    assert _took_the_forced_kernel(forced, split_pass_runs)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "TN", "NT", "TT"])
def test_infinities_in_some_k_tiles_only(rng, forced, split_pass_runs, trans):
    # the fused tile guards per k tile (32 deep) and per 128 x 128 block: infinities of A in one
    # k tile and of B in another, several blocks and k tiles, every transpose
    m, n, k = 260, 132, 200
    a = rng.integers(1, 4, (m, k)).astype(np.float32)
    b = rng.integers(1, 4, (k, n)).astype(np.float32) * rng.choice([-1, 1], (k, n)).astype(np.float32)
    a[5, 40] = np.inf      # k tile 1, block row 0
    a[200, 100] = -np.inf  # k tile 3, block row 1
    b[150, 7] = np.inf     # k tile 4
    b[40, 9] = 0.0         # C(5, 9): inf * 0 -> NaN
    got = _product_on_device(a, b, trans)
    with np.errstate(invalid="ignore", over="ignore"):
        want = wide(a) @ wide(b)
    finite = _assert_special_values_match(got, want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=0, atol=1e-30)
    assert _took_the_forced_kernel(forced, split_pass_runs)


@pytest.mark.gpu
def test_sums_float32_gets_exactly_stay_exact(rng, forced, split_pass_runs):
    # small integers with many zero sums: no infinity, so no guard and exact pieces
    m, n, k = 96, 80, 300
    a = rng.integers(-2, 3, (m, k)).astype(np.float32)
    b = rng.integers(-2, 3, (k, n)).astype(np.float32)
    b[:, :10] = 0.0
    da, db = to_device(np.asfortranarray(a).ravel(order="F")), to_device(np.asfortranarray(b).ravel(order="F"))
    dc = to_device(np.full(m * n, np.nan, np.float32))
    rocblas.gemm("N", "N", m, n, k, 1.0, da, m, db, k, 0.0, dc, m)
    got = to_host(dc).reshape(n, m).T
    np.testing.assert_array_equal(got, (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32))
    assert (got[:, :10] == 0).all() and not np.signbit(got[:, :10]).any()
    assert _took_the_forced_kernel(forced, split_pass_runs)


@pytest.mark.gpu
@pytest.mark.parametrize("activation", [None, "relu", "gelu"])
@pytest.mark.parametrize("shape", [(70, 33, 45), (300, 70, 5000)], ids=_ids)
def test_fused_bias_and_activation(rng, forced, shape, activation):
    # level 3's check, on the path (the second shape splits k: the epilogue runs in the finish)
    run_gemm_bias_activation(rng, "float32", *shape, activation)


@pytest.mark.gpu
@pytest.mark.parametrize("setting, taken", [("tf32x3", True), ("simt", False)])
def test_public_gemm_takes_the_path_where_the_setting_allows(rng, monkeypatch, setting, taken):
    _require_path()
    monkeypatch.setenv("ROCARRAY_TUNE", "0")  # the heuristic, no timing
    monkeypatch.setenv("ROCARRAY_GEMM_FLOAT32", setting)
    calls = []
    prepare = x3.prepare_run

    def spy(*args, **kwargs):
        calls.append(args)
        return prepare(*args, **kwargs)
    monkeypatch.setattr(x3, "prepare_run", spy)
    m = n = k = 1024
    run_gemm(rng, "float32", "NN", m, n, k)
    assert bool(calls) is taken
