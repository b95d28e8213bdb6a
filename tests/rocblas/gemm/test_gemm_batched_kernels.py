"""The kernels of gemm_batched.hip and the batched path choice (``_gemm/batched_kernels.py``):
names, registration, geometry, the team and bulk-copy kernels and their launches."""

import re

import numpy as np
import pytest

from conftest import assert_close, fake, to_device, to_host
from level3_host import GEMM_DTYPES as ALL, run_batched
from rocblas_fixtures import fresh_prepared_launches, record_launches  # noqa: F401  (autouse)

from rocarray._core import compile as _compile, kernels, launch as _launch
from rocarray.rocblas._gemm import batched_kernels as _batched_kernels, simt as _simt
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

def _ids(v):
    return str(v)


@pytest.fixture
def bulk_launches(monkeypatch):
    """The tiles of the packed square float32 launches, team or bulk-copy kernel (the launches
    themselves run)."""
    seen = []
    real = _batched_kernels.launch_bulk

    def spy(device_id, tile, *args):
        seen.append(tile)
        return real(device_id, tile, *args)

    monkeypatch.setattr(_batched_kernels, "launch_bulk", spy)
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
@pytest.mark.parametrize("size", _batched_kernels.BULK_TILES)
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
    bulk = _batched_kernels.bulk_device(backend.device_info(0).is_hip, major)
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

    from rocarray._core import backend

    major, _ = backend.compute_capability_version(backend.device_info(0))
    if not _batched_kernels.bulk_device(backend.device_info(0).is_hip, major):
        pytest.skip("this device takes the other batched kernels")
    for tile in _batched_kernels.BULK_TILES:
        for b_trans in (False, True):
            if tile == _batched_kernels.TEAM_TILE:   # the carveout the launch asks for leaves room for TEAM_RESIDENT teams
                handle = _batched_kernels.KERNELS[_batched_kernels.team_name(b_trans)]
                handle.prefer_carveout(0, _batched_kernels.TEAM_CARVEOUT)
                block, shared, planned = _batched_kernels.TEAM, 0, _batched_kernels.TEAM_RESIDENT
            else:
                handle = _batched_kernels.KERNELS[_batched_kernels.bulk_name(tile, b_trans)]
                block, shared, planned = _batched_kernels.BLOCK, _batched_kernels.bulk_shared(tile), _batched_kernels.bulk_blocks(tile)
                handle.allow_shared(0, shared)
            kernel = handle.function(0)
            assert kernel.attributes["local_size_bytes"] == 0
            resident = driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, block, shared)
            assert resident == planned, (tile, b_trans, resident)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "NT"])
@pytest.mark.parametrize("size", _batched_kernels.BULK_TILES)
def test_bulk_copy_kernel_chain_reads_each_previous_result(rng, bulk_launches, size, trans):
    """Bulk launches queued as programmatic dependents, each reading the C its predecessor writes
    (A of product i + 1 is C of product i): a launch that touched memory before the previous grid
    completed would read the NaN poison or a partial C. Each result is checked in float64."""
    from rocarray._core import backend, driver

    major, _ = backend.compute_capability_version(backend.device_info(0))
    bulk = _batched_kernels.bulk_device(backend.device_info(0).is_hip, major)
    if bulk:
        assert driver.dependent_launch_available()
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


def test_kernel_names():
    assert _batched_kernels.kernel_name(np.float32, 32) == "ra_rocblas_gemm_batched<float, 32>"
    assert _batched_kernels.kernel_name(np.float64, 8) == "ra_rocblas_gemm_batched<double, 8>"
    assert _batched_kernels.kernel_name(np.complex64, 16) == "ra_rocblas_gemm_batched<ra_c64, 16>"
    assert _batched_kernels.kernel_name(np.complex128, 64) == "ra_rocblas_gemm_batched<ra_c128, 64>"


def test_every_launched_kernel_is_registered_and_exists():
    registered = set(_compile.registered(_batched_kernels.SOURCE))
    assert registered == set(_batched_kernels.instantiations())
    streams = sum(len(tiles) for tiles in _batched_kernels.STREAM.values())
    bulk = 2 * len(_batched_kernels.BULK_TILES)   # op(B) = B or B^T: the team kernel, bulk for the others
    assert len(registered) == 4 * len(_batched_kernels.TILES) + streams + bulk  # transposes and modes are runtime
    assert streams <= 6  # keep the module lean: every name compiles for each target in CI
    source = _compile.read_text(_batched_kernels.SOURCE)
    assert "ra_rocblas_gemm_batched(" in source
    assert "ra_rocblas_gemm_batched_stream(" in source
    assert "ra_rocblas_gemm_batched_bulk(" in source
    assert "ra_rocblas_gemm_batched_team(" in source
    assert "#include" not in source
    assert re.search(r"(?<![\w.])32(?![\w.])", source) is None, "literal 32 (use RA_WARP_SIZE)"
    assert "__shfl" not in source and "__ballot" not in source


def test_flag_bits_and_geometry_match_the_source():
    source = _compile.read_text(_batched_kernels.SOURCE)
    for name, value in [("TRANS_A", 1), ("CONJ_A", 2), ("TRANS_B", 4), ("CONJ_B", 8)]:
        assert re.search(rf"#define RA_ROCBLAS_GB_{name} 0x{value:02x}\b", source), name
        assert getattr(_batched_kernels, name) == value == getattr(_simt, name)
    assert re.search(rf"#define RA_ROCBLAS_GB_BLOCK {_batched_kernels.BLOCK}\b", source)
    assert re.search(r"#define RA_ROCBLAS_GB_CHUNK_BYTES 128\b", source)
    assert re.search(r"#define RA_ROCBLAS_GB_PAD_BYTES 16\b", source)


def test_configurations_fit_a_block_and_static_shared_memory():
    assert [_batched_kernels.micro(s) for s in _batched_kernels.TILES] == [2, 2, 4, 4]
    assert [_batched_kernels.matrices_per_block(s) for s in _batched_kernels.TILES] == [16, 4, 4, 1]
    assert [_batched_kernels.k_chunk(s, np.float32) for s in _batched_kernels.TILES] == [8, 16, 32, 32]
    assert [_batched_kernels.k_chunk(s, np.complex128) for s in _batched_kernels.TILES] == [8, 8, 8, 8]
    for dtype in ALL:
        for s in _batched_kernels.TILES:
            threads = _batched_kernels.matrices_per_block(s) * (s // _batched_kernels.micro(s)) ** 2
            assert threads == _batched_kernels.BLOCK
            assert (_batched_kernels.matrices_per_block(s) * s * _batched_kernels.k_chunk(s, dtype)) % _batched_kernels.BLOCK == 0
            assert _batched_kernels.shared_bytes(s, dtype) <= 40 * 1024, (dtype, s)


def test_bulk_copy_kernel_layout_rules():
    assert _batched_kernels.bulk_name(64, False) == "ra_rocblas_gemm_batched_bulk<64, false>"
    assert _batched_kernels.bulk_name(64, True) == "ra_rocblas_gemm_batched_bulk<64, true>"
    assert _batched_kernels.team_name(False) == "ra_rocblas_gemm_batched_team<false>"
    assert _batched_kernels.team_name(True) == "ra_rocblas_gemm_batched_team<true>"
    source = _compile.read_text(_batched_kernels.SOURCE)
    assert re.search(rf"#define RA_ROCBLAS_GB_BULK_ALIGN {_batched_kernels.BULK_ALIGN}\b", source)
    assert "STAGES = MB > 1 ? 4 : 3;" in source and "BLOCKS = MB > 1 ? 1 : 2;" in source
    # the team: 8 x 4 threads, four rows by eight columns of C each, one float4 per 4 k of B's column
    assert re.search(r"#define RA_ROCBLAS_GB_TEAM_TX 8\b", source) and re.search(r"#define RA_ROCBLAS_GB_TEAM_TY 4\b", source)
    assert _batched_kernels.TEAM == 8 * 4 and _batched_kernels.TEAM_TILE == 4 * 8 == 8 * 4 and _batched_kernels.TEAM_TILE in _batched_kernels.BULK_TILES
    assert "constexpr int S = 4 * RA_ROCBLAS_GB_TEAM_TX;" in source
    # The carveout asks for more than the 132 KiB size of an H200 multiprocessor (228 KiB at most), so
    # the driver takes the next one, 164 KiB: TEAM_RESIDENT teams of 8 KiB (plus the 1 KiB the driver
    # reserves a block) fit it, one more does not.
    assert 132 < _batched_kernels.TEAM_CARVEOUT / 100 * 228 <= 164
    team = 2 * _batched_kernels.TEAM_TILE**2 * 4 + 1024
    assert _batched_kernels.TEAM_RESIDENT * team <= 164 * 1024 < (_batched_kernels.TEAM_RESIDENT + 1) * team
    ring = [t for t in _batched_kernels.BULK_TILES if t != _batched_kernels.TEAM_TILE]
    assert ring == [64]
    assert [_batched_kernels.bulk_stages(t) for t in ring] == [3]
    assert [_batched_kernels.bulk_blocks(t) for t in ring] == [2]
    for tile in ring:
        assert _batched_kernels.micro(tile) == 4   # the kernel reads float4 micro-tile rows
        assert 2 * _batched_kernels.matrices_per_block(tile) * tile * tile * 4 == _batched_kernels.BULK_STAGE_BYTES
        assert _batched_kernels.bulk_shared(tile) == _batched_kernels.bulk_stages(tile) * _batched_kernels.BULK_STAGE_BYTES + _batched_kernels.BULK_ALIGN
        # the planned blocks (with their static and reserved shared memory) fit an H200 multiprocessor
        assert _batched_kernels.bulk_blocks(tile) * (_batched_kernels.bulk_shared(tile) + 1024 + 64) <= 228 * 1024
    f32, T = np.float32, _batched_kernels.TRANS_B
    fits = _batched_kernels.bulk_fits
    assert fits(f32, 32, 32, 32, 32, 1024, 32, 1024, 0, 1 << 20, 1 << 21)
    assert fits(f32, 32, 32, 32, 32, 0, 32, 1028, T, 1 << 20, 16)       # broadcast A, gapped B, B^T
    assert fits(f32, 64, 64, 64, 64, 4096, 64, 4096, 0, 1 << 20, 1 << 21)
    assert not fits(np.float64, 32, 32, 32, 32, 1024, 32, 1024, 0, 1 << 20, 1 << 21)
    assert not fits(f32, 16, 16, 16, 16, 256, 16, 256, 0, 1 << 20, 1 << 21)     # not a bulk tile
    assert not fits(f32, 32, 32, 31, 32, 1024, 31, 1024, 0, 1 << 20, 1 << 21)   # k != S
    assert not fits(f32, 32, 31, 32, 32, 1024, 32, 1024, 0, 1 << 20, 1 << 21)   # n != S
    assert not fits(f32, 32, 32, 32, 33, 1056, 32, 1024, 0, 1 << 20, 1 << 21)   # padded lda
    assert not fits(f32, 32, 32, 32, 32, 1024, 32, 1024, _batched_kernels.TRANS_A, 1 << 20, 1 << 21)
    assert not fits(f32, 32, 32, 32, 32, 1026, 32, 1024, 0, 1 << 20, 1 << 21)   # stride off 16 bytes
    assert not fits(f32, 32, 32, 32, 32, 1024, 32, 1024, 0, (1 << 20) + 4, 1 << 21)  # address off 16 bytes
    assert _batched_kernels.bulk_device(False, 9) and _batched_kernels.bulk_device(False, 10)
    assert not _batched_kernels.bulk_device(False, 8) and not _batched_kernels.bulk_device(True, 9)


def _launched(calls):
    """The recorded launches as (name, grid, block, shared_mem, number of arguments)."""
    return [(name, grid, block, shared, len(args)) for name, grid, block, args, shared in calls]


@needs_cupy
def test_packed_launches_team_and_bulk(monkeypatch):
    """32: the team kernel, a block of TEAM threads a product, its carveout asked for; 64: the
    bulk-copy kernel, one wave with its shared memory. The repeats launch the same on new addresses."""
    calls, carveouts = record_launches(monkeypatch, _batched_kernels, wave=1056, multiprocessors=132)
    monkeypatch.setattr(kernels, "occupancy", lambda function, block, limit, dynamic_shared=0: 2)
    monkeypatch.setattr(_launch, "on_device", lambda device_id: __import__("contextlib").nullcontext())
    one, zero = np.float32(1), np.float32(0)
    _batched_kernels.launch_bulk(0, 32, False, one, 1, 1024, 2, 1024, zero, 3, 32, 1024, 100000)
    _batched_kernels.launch_bulk(0, 32, True, one, 1, 1024, 2, 1024, zero, 3, 32, 1024, 9)
    _batched_kernels.launch_bulk(0, 64, False, one, 1, 4096, 2, 4096, zero, 3, 64, 4096, 100000)
    _batched_kernels.launch_bulk(0, 64, True, one, 1, 4096, 2, 0, zero, 3, 64, 4096, 7)   # broadcast B
    launched, arguments = _launched(calls), [args for _, _, _, args, _ in calls]
    assert launched == [("ra_rocblas_gemm_batched_team<false>", (100000,), (32,), 0, 9),
                        ("ra_rocblas_gemm_batched_team<true>", (9,), (32,), 0, 9),
                        ("ra_rocblas_gemm_batched_bulk<64, false>", (264,), (256,), _batched_kernels.bulk_shared(64), 10),
                        ("ra_rocblas_gemm_batched_bulk<64, true>", (7,), (256,), _batched_kernels.bulk_shared(64), 10)]
    assert carveouts == [("ra_rocblas_gemm_batched_team<false>", _batched_kernels.TEAM_CARVEOUT),
                         ("ra_rocblas_gemm_batched_team<true>", _batched_kernels.TEAM_CARVEOUT)]
    # the arguments: alpha, A, stride_a, B, stride_b, beta, C, ldc, stride_c (and the bulk kernel's batch)
    assert [int(a) for a in arguments[3][1:5]] == [1, 4096, 2, 0] and int(arguments[3][9]) == 7
    assert [int(a) for a in arguments[0][1:5]] == [1, 1024, 2, 1024] and int(arguments[0][8]) == 1024
    calls.clear()
    again = _batched_kernels.launch_bulk(0, 32, False, one, 1, 1024, 2, 1024, zero, 3, 32, 1024, 100000)
    for b in (2, 4096, 8192):
        again(one, zero, 1, b, 3)
    launched, arguments = _launched(calls), [args for _, _, _, args, _ in calls]
    assert launched == [launched[0]] * 4 and [int(a[3]) for a in arguments] == [2, 2, 4096, 8192]
    assert len(carveouts) == 2   # asked once, when the launch is prepared
    calls.clear()
    _batched_kernels.launch_bulk(0, 64, False, one, 1, 4096, 2, 4096, zero, 3, 64, 4096, 100000)(one, zero, 8, 16, 32)
    launched = _launched(calls)
    assert launched == [launched[0]] * 2 and launched[0][0] == "ra_rocblas_gemm_batched_bulk<64, false>"


@needs_cupy
def test_bulk_copy_route(monkeypatch):
    calls = []
    monkeypatch.setattr(_batched_kernels, "launch_bulk", lambda device_id, tile, b_trans, *a: calls.append(("bulk", tile, b_trans)))
    monkeypatch.setattr(_batched_kernels, "launch_small", lambda *a, **kw: calls.append(("small",)))
    monkeypatch.setattr(_launch, "on_device", lambda device_id: __import__("contextlib").nullcontext())
    A = fake((10**6,), np.float32)
    B = fake((10**6,), np.float32, address=1 << 30)
    C = fake((10**6,), np.float32, address=1 << 31)
    for device in (True, False):
        monkeypatch.setattr(_batched_kernels, "_bulk", lambda device_id, device=device: device)
        rocblas.gemm_strided_batched("N", "T", 32, 32, 32, 1.0, A, 32, 1024, B, 32, 1024, 0.0, C, 33, 1056, 10)
        rocblas.gemm_strided_batched("N", "N", 64, 64, 64, 1.0, A, 64, 4096, B, 64, 4096, 0.0, C, 64, 4096, 10)
        rocblas.gemm_strided_batched("T", "N", 32, 32, 32, 1.0, A, 32, 1024, B, 32, 1024, 0.0, C, 32, 1024, 10)
        rocblas.gemm_strided_batched("N", "N", 32, 32, 32, 0.0, A, 32, 1024, B, 32, 1024, 2.0, C, 32, 1024, 10)
    # alpha == 0 is C := beta C (k passed as 0): never the bulk kernel
    assert calls == [("bulk", 32, True), ("bulk", 64, False), ("small",), ("small",)] + [("small",)] * 4


def test_tile_choice_and_paths():
    assert _batched_kernels.tile_for(1, 1) == 8
    assert _batched_kernels.tile_for(8, 3) == 8
    assert _batched_kernels.tile_for(9, 8) == 16
    assert _batched_kernels.tile_for(16, 16) == 16
    assert _batched_kernels.tile_for(17, 2) == 32
    assert _batched_kernels.tile_for(32, 32) == 32
    assert _batched_kernels.tile_for(33, 1) == 64
    assert _batched_kernels.tile_for(64, 64) == 64
    assert _batched_kernels.tile_for(65, 1000) == 64
    assert _batched_kernels.choose(64, 64, False) == "small"
    assert _batched_kernels.choose(1, 64, True) == "small"
    assert _batched_kernels.choose(65, 64, False) == "tiled"
    assert _batched_kernels.choose(64, 65, True) == "pointer-tiled"
    assert _batched_kernels.choose(32, 32, False, batch=1, k=_batched_kernels.LONG_K) == "small"
    assert _batched_kernels.choose(32, 32, False, batch=1, k=_batched_kernels.LONG_K + 1) == "tiled"
    assert _batched_kernels.choose(32, 32, False, batch=2, k=10**6) == "small"
    assert _batched_kernels.choose(32, 32, True, batch=1, k=10**6) == "small"
    big = 512
    assert big**3 == _batched_kernels.LOOP_MIN_WORK
    assert _batched_kernels.choose(big, big, True, batch=_batched_kernels.LOOP_MAX_BATCH, k=big) == "pointer-loop"
    assert _batched_kernels.choose(big, big, True, batch=_batched_kernels.LOOP_MAX_BATCH + 1, k=big) == "pointer-tiled"
    assert _batched_kernels.choose(big, big, True, batch=2, k=big - 1) == "pointer-tiled"
    assert _batched_kernels.choose(big, big, True, batch=2, k=0) == "pointer-tiled"
    assert _batched_kernels.choose(big, big, False, batch=2, k=big) == "tiled"


def test_streaming_kernel_choice():
    assert _batched_kernels.stream_name(np.float32, 32) == "ra_rocblas_gemm_batched_stream<float, 32>"
    assert _batched_kernels.stream_name(np.float64, 64) == "ra_rocblas_gemm_batched_stream<double, 64>"
    assert set(_batched_kernels.STREAM) <= {np.dtype(d) for d in ALL}
    assert all(set(tiles) <= set(_batched_kernels.TILES) for tiles in _batched_kernels.STREAM.values())
    for dtype in ALL:
        for tile in _batched_kernels.TILES:
            want = tile in _batched_kernels.STREAM.get(np.dtype(dtype), ())
            assert _batched_kernels.streams(dtype, tile, 5) == want
            assert not _batched_kernels.streams(dtype, tile, 0)  # C := beta C runs the one-shot kernel
    assert _batched_kernels.streams(np.float32, 32, 32) and not _batched_kernels.streams(np.float32, 64, 64)  # 64: measured slower
    assert not _batched_kernels.streams(np.float32, 8, 8)


@needs_cupy
def test_streaming_launch_grid_is_one_wave(monkeypatch):
    """The streaming kernel runs min(work items, one resident wave) blocks; the others their grid."""
    calls, _ = record_launches(monkeypatch, _batched_kernels, wave=396)
    monkeypatch.setattr(_launch, "on_device", lambda device_id: __import__("contextlib").nullcontext())
    one, zero = np.float32(1), np.float32(0)
    mem = (fake((10,), np.float32).data, None)
    repeats = [
        _batched_kernels.launch_small(0, np.float32, 32, 32, 32, one, mem, 32, 1024, mem, 32, 1024, zero, mem, 32, 1024, 100000, 0),
        _batched_kernels.launch_small(0, np.float32, 32, 32, 32, one, mem, 32, 1024, mem, 32, 1024, zero, mem, 32, 1024, 40, 0),
        _batched_kernels.launch_small(0, np.float32, 32, 32, 0, one, mem, 32, 1024, mem, 32, 1024, zero, mem, 32, 1024, 100000, 0),
        _batched_kernels.launch_small(0, np.float32, 8, 8, 8, one, mem, 8, 64, mem, 8, 64, zero, mem, 8, 64, 100000, 0)]
    want = [("ra_rocblas_gemm_batched_stream<float, 32>", (396,), (256,), 0, 19),
            ("ra_rocblas_gemm_batched_stream<float, 32>", (10,), (256,), 0, 19),
            ("ra_rocblas_gemm_batched<float, 32>", (25000,), (256,), 0, 19),
            ("ra_rocblas_gemm_batched<float, 8>", (6250,), (256,), 0, 19)]
    assert _launched(calls) == want
    # the prepared repeats launch exactly what the first calls launched (here through the
    # stand-in's call, as NumPy values)
    calls.clear()
    for again in repeats:
        again(one, zero, 1 << 20, 1 << 21, 1 << 22)
        again(one, zero, 1 << 23, 1 << 24, 1 << 25)
    assert _launched(calls) == [w for w in want for _ in range(2)]
    pointer_mode = (None, fake((10,), np.uint64))
    assert _batched_kernels.launch_small(0, np.float32, 8, 8, 8, one, pointer_mode, 8, 0, pointer_mode, 8, 0, zero,
                                         pointer_mode, 8, 0, 10, 0) is None


def test_grid_counts_tiles_and_groups_of_matrices():
    assert _batched_kernels.grid(32, 32, 100000, 32) == 25000
    assert _batched_kernels.grid(8, 8, 100000, 8) == 6250
    assert _batched_kernels.grid(8, 8, 17, 8) == 2
    assert _batched_kernels.grid(16, 16, 5, 16) == 2
    assert _batched_kernels.grid(64, 64, 7, 64) == 7
    assert _batched_kernels.grid(130, 65, 3, 64) == 3 * 2 * 3
    with pytest.raises(ValueError, match="more than one launch takes"):
        _batched_kernels.grid(64, 64, 2**31, 64)
