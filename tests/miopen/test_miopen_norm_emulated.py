"""The normalization kernels run on the CPU through the kernel emulator (tests/kernel_emu.py),
through their library functions, against the NumPy float64 references of norm_reference.py:
multi-split grids (the last-block merge), both layouts, the vector and scalar paths, 16-bit
data on the wave64 target. CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from miopen import norm_reference as ref

from rocarray import miopen
from rocarray.miopen import _batchnorm, _layernorm

SEED = 20261205


def _tol(dtype):
    return {"float64": 1e-11, "float32": 2e-5, "float16": 4e-3, "bfloat16": 3e-2}[np.dtype(dtype).name]


def _close(got, want, dtype, scale=None):
    got = np.asarray(got).astype(np.float64)
    tol = _tol(dtype)
    scale = float(np.max(np.abs(want))) if scale is None else scale
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(scale, 1.0))


def _channels(layout, shape):
    return shape[1] if layout == "NCHW" or len(shape) == 2 else shape[-1]


# (shape, layout): nchw with a vector path and several splits per channel, an odd plane (scalar
# path), nhwc with several row splits and a channel tile wider than C, eleven channel tiles of
# scalars (330 float32 channels), (N, C), 32 float64 channels (the forward's vector path: two
# tiles of 8 x 2 channels; the backward's scalar grid has 65 row splits, so the finishing block's
# lanes read their partials in two batches), 44 float32 channels (11 vectors: a tile of 8 lanes,
# the second one partly empty)
BN_CASES = [((3, 2, 3000), "NCHW"), ((2, 3, 5, 7), "NCHW"), ((700, 5), "NHWC"), ((4, 5, 330), "NHWC"),
            ((9, 6), "NCHW"), ((4100, 32), "NHWC"), ((3, 70, 44), "NHWC")]


@pytest.mark.parametrize("shape,layout", BN_CASES)
def test_batchnorm_training_forward_and_backward(emulated_device, shape, layout):
    rng = np.random.default_rng(SEED)
    dtype = np.float32 if len(shape) == 3 else np.float64
    C = _channels(layout, shape)
    x = (3.0 + 2.0 * rng.standard_normal(shape)).astype(dtype)
    acc = _batchnorm.acc_dtype(dtype)
    w, b = rng.standard_normal(C).astype(acc), rng.standard_normal(C).astype(acc)
    rm, rv = rng.standard_normal(C).astype(acc), (1 + rng.random(C)).astype(acc)
    geo = _batchnorm.geometry(shape, layout, np.dtype(dtype), 132 * _batchnorm.BLOCKS_PER_MULTIPROCESSOR)
    dev = emulated_device
    d_rm, d_rv = dev.array(rm), dev.array(rv)
    y, mean, invstd = miopen.batchnorm_forward_training(dev.array(x), dev.array(w), dev.array(b), d_rm, d_rv, 0.1,
                                                        1e-5, layout=layout)
    want = ref.batch_norm_training(x, w, b, rm, rv, 0.1, 1e-5, layout)
    _close(y, want[0], dtype)
    _close(mean, want[1], dtype)
    _close(invstd, want[2], dtype)
    _close(d_rm, want[3], dtype)
    _close(d_rv, want[4], dtype)
    assert shape != BN_CASES[0][0] or geo.splits > 1
    assert shape != BN_CASES[2][0] or geo.splits > 1
    assert shape != BN_CASES[5][0] or geo.splits > 8 * _batchnorm.BLOCK // geo.cols
    if layout == "NHWC" and len(shape) > 2:  # the forward takes the vector path where C allows
        stats = [launch for launch in dev.launches if "stats_nhwc" in launch.name][-1]
        assert int(stats.args[5]) == int(C % (16 // np.dtype(dtype).itemsize) == 0)
    dy = rng.standard_normal(shape).astype(dtype)
    dx, dw, db = miopen.batchnorm_backward(dev.array(dy), dev.array(x), dev.array(w), mean, invstd, layout=layout)
    want = ref.batch_norm_backward(dy, x, w, np.asarray(mean), np.asarray(invstd), True, layout)
    _close(dx, want[0], dtype)
    _close(dw, want[1], dtype)
    _close(db, want[2], dtype)


# The statistics' ring of loads (ra_bn_stream_moments) at its boundaries: (shape, layout, dtype,
# splits). Channels first, float32 vectors (a ring of 5, 1 folded a time): image runs shorter than
# a block's step of 256 vectors (9 vectors: the walk's wrap after 28 images and 4 positions) with
# threads at exactly two rings and at two and one; runs longer than the step (1000 vectors) with
# split ends inside an image; runs of one vector (2 x 2 planes: 256 images a step); N = 1 and
# C = 1 over 3 splits; odd planes (the scalar path, a ring of 20 folded 4 at a time: 42 loads a
# thread, a full turn, the drain and a partial group); float64 (a ring of 6, 2 a time) and float16
# (8 elements a vector) vectors, float16 scalars. Channels last: float32 vectors over 47 rows a
# thread and over split ends, float32 and float64 scalars past two rings, float16 and bfloat16
# vectors (8 channels a thread).
BN_STREAM_CASES = [((300, 2, 36), "NCHW", "float32", 2), ((3, 2, 4000), "NCHW", "float32", 2),
                   ((2600, 3, 2, 2), "NCHW", "float32", 1), ((1, 1, 40000), "NCHW", "float32", 3),
                   ((220, 2, 49), "NCHW", "float32", 1), ((2, 3, 3000), "NCHW", "float64", 1),
                   ((4, 2, 6000), "NCHW", "float16", 1), ((280, 1, 7, 11), "NCHW", "float16", 2),
                   ((1500, 32), "NHWC", "float32", 1), ((6, 250, 32), "NHWC", "float32", 3),
                   ((2600, 7), "NHWC", "float32", 2), ((1400, 5), "NHWC", "float64", 1),
                   ((3, 40, 50, 16), "NHWC", "float16", 1), ((2, 3000, 8), "NHWC", "bfloat16", 2)]


@pytest.mark.parametrize("target", ["cuda32", "hip64"])
@pytest.mark.parametrize("shape,layout,dtype,splits", BN_STREAM_CASES)
def test_batchnorm_statistics_stream_boundaries(request, monkeypatch, target, shape, layout, dtype, splits):
    if dtype in ("float16", "bfloat16") and target == "cuda32":
        pytest.skip("the 32-lane target's 16-bit conversions are inline PTX; the 64-lane one runs them")
    if dtype == "bfloat16":
        dtype = np.dtype(pytest.importorskip("ml_dtypes").bfloat16)
    dev = request.getfixturevalue("emulated_device" if target == "cuda32" else "emulated_wave64_device")
    rng = np.random.default_rng(SEED + len(shape) * 1000 + shape[0])
    C = _channels(layout, shape)
    tiles = -(-C // 32) if layout == "NHWC" else C  # the grid's tiles at most 32 channels wide
    monkeypatch.setattr(_batchnorm, "resident_blocks", lambda name, dev: splits * tiles)
    x = (1.5 + rng.standard_normal(shape)).astype(dtype)
    acc = _batchnorm.acc_dtype(dtype)
    w, b = rng.standard_normal(C).astype(acc), rng.standard_normal(C).astype(acc)
    rm, rv = rng.standard_normal(C).astype(acc), (1 + rng.random(C)).astype(acc)
    d_rm, d_rv = dev.array(rm), dev.array(rv)
    out = dev.array(np.full(shape, np.nan, dtype))
    y, mean, invstd = miopen.batchnorm_forward_training(dev.array(x), dev.array(w), dev.array(b), d_rm, d_rv, 0.1,
                                                        1e-5, layout=layout, out=out)
    stats = [launch for launch in dev.launches if "bn_stats" in launch.name][-1]
    assert stats.grid[1 if layout == "NCHW" else 0] == splits
    want = ref.batch_norm_training(x.astype(np.float64), w, b, rm, rv, 0.1, 1e-5, layout)
    stat_tol = "float32" if np.dtype(dtype).itemsize == 2 else dtype  # float32 statistics of 16-bit data
    _close(y, want[0], dtype)
    _close(mean, want[1], stat_tol)
    _close(invstd, want[2], stat_tol)
    _close(d_rm, want[3], stat_tol)
    _close(d_rv, want[4], stat_tol)


def test_batchnorm_statistics_of_a_misaligned_input(emulated_device, monkeypatch):
    # S a multiple of the vector width but x 4 bytes past a 16-byte boundary: the scalar walk (a
    # ring of 20 floats) over the same image runs, two splits
    rng = np.random.default_rng(SEED)
    shape = (300, 2, 36)
    monkeypatch.setattr(_batchnorm, "resident_blocks", lambda name, dev: 2 * shape[1])
    x = (1.5 + rng.standard_normal(shape)).astype(np.float32)
    base = emulated_device.array(np.concatenate([np.zeros(1, np.float32), x.ravel()]))
    xd = base[1:].reshape(shape)
    assert xd.data.ptr % 16 == 4
    y, mean, invstd = miopen.batchnorm_forward_training(xd, None, None, None, None, 0.1, 1e-5)
    stats = [launch for launch in emulated_device.launches if "bn_stats" in launch.name][-1]
    assert int(stats.args[5]) == 0 and stats.grid[1] == 2
    want = ref.batch_norm_training(x.astype(np.float64), None, None, None, None, 0.1, 1e-5)
    _close(y, want[0], "float32")
    _close(mean, want[1], "float32")
    _close(invstd, want[2], "float32")


# The channels-first training forward on the pipeline of resident blocks (PIPE_TRAINING): (target,
# shape, dtype, blocks, affine and running statistics) and the geometry they give (splits a
# channel, slice, channels a step). float32: channels of 2103 vectors (runs of 701), two items
# of 1052 and 1051 (straddling runs; 28 threads hold five vectors) on 7 blocks, 3 channels a step,
# four steps (the last one channel: one block without an item); float64: channels of 2100
# vectors, two items, two steps of two channels on 5 blocks (one idle), no affine or running
# statistics; float16 on the 64-lane target: channels of 2050 vectors, two items, three steps
# (2, 2, 1) on 5 blocks.
PIPE_CASES = [("cuda32", (3, 10, 2804), "float32", 7, True, (2, 1052, 3)),
              ("cuda32", (3, 4, 1400), "float64", 5, False, (2, 1050, 2)),
              ("hip64", (2, 5, 8200), "float16", 5, True, (2, 1025, 2))]


@pytest.mark.parametrize("items,depth", _batchnorm.PIPE_SHAPES)
@pytest.mark.parametrize("target,shape,dtype,blocks,affine,geo", PIPE_CASES)
def test_batchnorm_training_on_the_pipeline(request, monkeypatch, target, shape, dtype, blocks, affine, geo, items,
                                            depth):
    dev = request.getfixturevalue("emulated_device" if target == "cuda32" else "emulated_wave64_device")
    monkeypatch.setattr(_batchnorm, "PIPE_TRAINING", True)
    monkeypatch.setattr(_batchnorm, "PIPE_ITEMS", items)
    monkeypatch.setattr(_batchnorm, "PIPE_DEPTH", depth)
    monkeypatch.setattr(_batchnorm, "PIPE_MIN_BYTES", 0)
    monkeypatch.setattr(_batchnorm, "pipe_blocks", lambda device_id, dtype, items, depth: blocks)
    rng = np.random.default_rng(SEED + shape[1])
    C, dt = shape[1], np.dtype(dtype)
    acc = _batchnorm.acc_dtype(dt)
    # a mean that grows with the image: the items of a channel differ, so a wrong count or order shows
    ramp = 3.0 * np.arange(shape[0]).reshape((-1,) + (1,) * (len(shape) - 1))
    x = (1.5 + 2.0 * rng.standard_normal(shape) + ramp).astype(dt)
    w, b = (rng.standard_normal(C).astype(acc), rng.standard_normal(C).astype(acc)) if affine else (None, None)
    rm, rv = (rng.standard_normal(C).astype(acc), (1 + rng.random(C)).astype(acc)) if affine else (None, None)
    results = []
    for _ in range(2):  # twice: the same bits (and a new epoch for the flags)
        d_rm, d_rv = (dev.array(rm), dev.array(rv)) if affine else (None, None)
        out = dev.array(np.full(shape, np.nan, dt))  # poisoned: every element must be written
        y, mean, invstd = miopen.batchnorm_forward_training(dev.array(x), dev.array(w) if affine else None,
                                                            dev.array(b) if affine else None, d_rm, d_rv, 0.1, 1e-5,
                                                            out=out)
        launched = dev.launches[-1]
        assert launched.name.startswith("ra_miopen_bn_train_pipe_nchw") and launched.cooperative
        assert launched.name.endswith(f", {items}, {depth}>") and launched.shared == (depth + 1) * items * 256 * 16
        assert launched.grid == (blocks, 1, 1)
        assert (int(launched.args[6]), int(launched.args[5]), int(launched.args[7])) == geo
        _batchnorm.check_pipe(0)
        results.append([np.asarray(a).copy() for a in (y, mean, invstd) + ((d_rm, d_rv) if affine else ())])
    for got, again in zip(*results):
        assert got.tobytes() == again.tobytes()
    want = ref.batch_norm_training(x.astype(np.float64), w, b, rm, rv, 0.1, 1e-5, "NCHW")
    y, mean, invstd = results[0][:3]
    _close(y, want[0], dt)
    _close(mean, want[1], acc)
    _close(invstd, want[2], acc)
    if affine:
        _close(results[0][3], want[3], acc)
        _close(results[0][4], want[4], acc)


def test_pipe_geometry_takes_the_fewest_steps(monkeypatch):
    f32, f16, f64, shape = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64), (64, 256, 56, 56)
    geometry = _batchnorm.pipe_geometry
    monkeypatch.setattr(_batchnorm, "PIPE_TRAINING", False)
    assert geometry(shape, "NCHW", f32, 396) is None
    monkeypatch.setattr(_batchnorm, "PIPE_TRAINING", True)
    monkeypatch.setattr(_batchnorm, "PIPE_ITEMS", 8)
    # the bench's problem: 50,176 vectors a channel, at least 25 items of at most 2048
    assert geometry(shape, "NCHW", f32, 396) == (1930, 26, 15)  # 18 steps (3 blocks a multiprocessor)
    assert geometry(shape, "NCHW", f32, 528) == (1930, 26, 20)  # 13 steps
    assert geometry(shape, "NCHW", f16, 396) == (1930, 13, 29)  # half the vectors: 9 steps
    assert geometry(shape, "NCHW", f64, 396) == (2048, 49, 8)   # twice the vectors: 32 steps
    assert geometry(shape, "NHWC", f32, 396) is None
    assert geometry((64, 256, 7, 7), "NCHW", f32, 396) is None    # runs of 49: not whole vectors
    assert geometry((2, 3, 4, 4), "NCHW", f32, 396) == (1, 8, 3)  # one step, every vector an item of its own
    assert geometry((64, 2, 1024, 1024), "NCHW", f32, 396) is None  # 8192 items a channel: too many
    assert geometry((0, 2, 56, 56), "NCHW", f32, 396) is None
    assert geometry((1 << 16, 4, 128, 128), "NCHW", f32, 396) is None  # 2^32 vectors
    monkeypatch.setattr(_batchnorm, "PIPE_ITEMS", 6)
    assert geometry(shape, "NCHW", f32, 396) == (1521, 33, 12)  # items of at most 1536 vectors: 22 steps
    monkeypatch.setattr(_batchnorm, "PIPE_ITEMS", 8)
    for blocks in (1, 2, 7, 100, 396):  # every geometry: items fit a block, a step's items fit the blocks
        for shp in ((3, 10, 2804), (5, 7, 9, 12), (64, 256, 56, 56)):
            sl, splits, Q = geometry(shp, "NCHW", f32, blocks) or (1, 1, 1)
            nv = shp[0] * int(np.prod(shp[2:])) // 4
            assert sl <= _batchnorm.PIPE_ITEMS * _batchnorm.PIPE_BLOCK and Q * splits <= blocks
            assert splits == -(-nv // sl) or geometry(shp, "NCHW", f32, blocks) is None


def test_pipe_shape_prefers_items_of_seven_unless_they_take_many_more_steps(monkeypatch):
    f32, f16, f64 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)
    monkeypatch.setattr(_batchnorm, "PIPE_TRAINING", True)
    monkeypatch.setattr(_batchnorm, "PIPE_ITEMS", None)
    monkeypatch.setattr(_batchnorm, "PIPE_DEPTH", 1)
    monkeypatch.setattr(_batchnorm, "PIPE_AUTO_ITEMS", (7, 8))
    monkeypatch.setattr(_batchnorm, "PIPE_AUTO_STEPS", 1.25)
    asked = []

    def blocks_of(items, depth):
        asked.append((items, depth))
        return 396

    shape = _batchnorm.pipe_shape
    # 50,176 vectors a channel: 28 items of exactly 7 x 256 in 19 steps, against 18 steps of 8
    assert shape((64, 256, 56, 56), "NCHW", f32, blocks_of) == (7, 1, 396, 1792, 28, 14)
    assert asked == [(7, 1), (8, 1)]
    # 64 channels of 200,704 vectors: 22 steps of 7 against 16 of 8 (more than 1.25 times)
    assert shape((64, 64, 112, 112), "NCHW", f32, blocks_of) == (8, 1, 396, 2028, 99, 4)
    # half the vectors: 10 steps against 8, exactly 1.25 times: still 7
    assert shape((64, 64, 112, 112), "NCHW", f16, blocks_of)[:2] == (7, 1)
    # twice the vectors: 64 steps of one channel against 32 of two
    assert shape((64, 64, 112, 112), "NCHW", f64, blocks_of)[:2] == (8, 1)
    monkeypatch.setattr(_batchnorm, "PIPE_AUTO_STEPS", 1.2)
    assert shape((64, 64, 112, 112), "NCHW", f16, blocks_of)[:2] == (8, 1)
    assert shape((64, 256, 7, 7), "NCHW", f32, blocks_of) is None  # not whole vectors: no shape
    # one resident block of the 7-shape: only the 8-shape applies
    assert shape((64, 256, 56, 56), "NCHW", f32, lambda items, depth: 396 if items == 8 else 1)[0] == 8
    monkeypatch.setattr(_batchnorm, "PIPE_ITEMS", 8)  # forced
    asked.clear()
    assert shape((64, 256, 56, 56), "NCHW", f32, blocks_of) == (8, 1, 396, 1930, 26, 15)
    assert asked == [(8, 1)]


@pytest.mark.parametrize("layout,pipe", [("NCHW", False), ("NCHW", True), ("NHWC", False)])
def test_batchnorm_statistics_of_a_large_mean(emulated_device, monkeypatch, layout, pipe):
    # float32 data 1000 standard deviations from zero: the per-group means and the pairwise
    # update keep the variance to a few float32 roundings of the mean's size over sigma (2^-24 *
    # 1000 * a small factor), where sums of squares would lose it entirely
    rng = np.random.default_rng(SEED)
    shape = (40, 3, 30, 30) if layout == "NCHW" else (40, 30, 30, 8)
    monkeypatch.setattr(_batchnorm, "PIPE_TRAINING", pipe)  # six items a channel (of 1536 vectors), three steps
    monkeypatch.setattr(_batchnorm, "PIPE_ITEMS", 6)
    monkeypatch.setattr(_batchnorm, "PIPE_DEPTH", 2)
    monkeypatch.setattr(_batchnorm, "PIPE_MIN_BYTES", 0)
    monkeypatch.setattr(_batchnorm, "pipe_blocks", lambda device_id, dtype, items, depth: 6)
    x = (1000.0 + rng.standard_normal(shape)).astype(np.float32)
    y, mean, invstd = miopen.batchnorm_forward_training(emulated_device.array(x), None, None, None, None, 0.1, 1e-5,
                                                        layout=layout)
    assert any("train_pipe" in launch.name for launch in emulated_device.launches) == pipe
    want = ref.batch_norm_training(x.astype(np.float64), None, None, None, None, 0.1, 1e-5, layout)
    np.testing.assert_allclose(np.asarray(mean, np.float64), want[1], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(invstd, np.float64), want[2], rtol=2e-5)
    np.testing.assert_allclose(np.asarray(y, np.float64), want[0], rtol=0, atol=2e-3)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_batchnorm_inference_and_its_backward(emulated_device, layout):
    rng = np.random.default_rng(SEED)
    shape = (2, 3, 4, 5) if layout == "NCHW" else (2, 4, 5, 3)
    x = rng.standard_normal(shape)
    rm, rv = rng.standard_normal(3), 1 + rng.random(3)
    dev = emulated_device
    y, invstd = miopen.batchnorm_forward_inference(dev.array(x), None, None, dev.array(rm), dev.array(rv), 1e-3,
                                                   layout=layout)
    want, want_invstd = ref.batch_norm_inference(x, None, None, rm, rv, 1e-3, layout)
    _close(y, want, "float64")
    _close(invstd, want_invstd, "float64")
    dy = rng.standard_normal(shape)
    dx, dw, db = miopen.batchnorm_backward(dev.array(dy), dev.array(x), None, dev.array(rm), invstd, training=False,
                                           layout=layout)
    want = ref.batch_norm_backward(dy, x, None, rm, want_invstd, False, layout)
    assert dw is None
    _close(dx, want[0], "float64")
    _close(db, want[2], "float64")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_batchnorm_16bit_on_wave64(emulated_wave64_device, dtype):
    ml_dtypes = pytest.importorskip("ml_dtypes") if dtype == "bfloat16" else None
    dt = np.dtype(ml_dtypes.bfloat16) if ml_dtypes else np.dtype(dtype)
    rng = np.random.default_rng(SEED)
    dev = emulated_wave64_device
    for shape, layout in (((2, 3, 40), "NCHW"), ((50, 6), "NHWC"), ((20, 3, 16), "NHWC")):
        C = _channels(layout, shape)
        x = rng.standard_normal(shape).astype(dt)
        w = rng.standard_normal(C).astype(np.float32)
        y, mean, invstd = miopen.batchnorm_forward_training(dev.array(x), dev.array(w), None, None, None, 0.1, 1e-5,
                                                            layout=layout)
        assert y.dtype == dt and mean.dtype == np.float32
        want = ref.batch_norm_training(x.astype(np.float64), w, None, None, None, 0.1, 1e-5, layout)
        _close(y, want[0], dt)
        _close(mean, want[1], "float32", scale=1.0)
        dy = rng.standard_normal(shape).astype(dt)
        dx, dw, db = miopen.batchnorm_backward(dev.array(dy), dev.array(x), dev.array(w), mean, invstd, layout=layout)
        want = ref.batch_norm_backward(dy.astype(np.float64), x.astype(np.float64), w, np.asarray(mean),
                                       np.asarray(invstd), True, layout)
        _close(dx, want[0], dt)
        _close(dw, want[1], "float32", scale=10.0)


# (rows, D, dtype): 32-thread groups with the vector and the scalar path (several row splits of
# the weight-gradient kernel), a block of 128 per row from registers (three column tiles), a block
# of 256 per row streaming a row longer than the registers, a block of 256 per row from registers
LN_CASES = [(70, 40, "float32"), (9, 37, "float64"), (3, 600, "float32"), (2, 4100, "float32"),
            (3, 3000, "float32")]


def _param(dev, a, misaligned):
    """``a`` on the device (one element past a 16-byte boundary when ``misaligned``)."""
    if a is None:
        return None
    if not misaligned:
        return dev.array(a)
    view = dev.array(np.concatenate([a[:1], a]))[1:]
    assert view.data.ptr % 16 != 0
    return view


def _layer_norm_case(dev, rng, rows, D, dtype, with_weight=True, misaligned_params=False):
    dt = np.dtype(dtype)
    x = (1.5 + rng.standard_normal((rows, D))).astype(dt)
    acc = np.float64 if dt == np.float64 else np.float32
    w = rng.standard_normal(D).astype(acc) if with_weight else None
    b = rng.standard_normal(D).astype(acc) if with_weight else None
    y, mean, invstd = miopen.layernorm_forward(dev.array(x), _param(dev, w, misaligned_params),
                                               _param(dev, b, misaligned_params), 1e-5, norm_size=D)
    want = ref.layer_norm(x.astype(np.float64), 1, w, b, 1e-5)
    _close(y, want[0], dt)
    _close(mean, want[1].ravel(), "float32" if dt.itemsize == 2 else dt, scale=1.0)
    _close(invstd, want[2].ravel(), "float32" if dt.itemsize == 2 else dt, scale=1.0)
    dy = rng.standard_normal((rows, D)).astype(dt)
    dx, dw, db = miopen.layernorm_backward(dev.array(dy), dev.array(x), _param(dev, w, misaligned_params), mean,
                                           invstd, norm_size=D)
    want = ref.layer_norm_backward(dy.astype(np.float64), x.astype(np.float64), 1, np.asarray(mean),
                                   np.asarray(invstd), w)
    _close(dx, want[0], dt)
    wide = "float32" if dt.itemsize == 2 else dt
    _close(dw, want[1], wide, scale=float(np.abs(want[1]).max()) * 4)
    _close(db, want[2], wide, scale=float(np.abs(want[2]).max()) * 4)


@pytest.mark.parametrize("rows,D,dtype", LN_CASES)
def test_layernorm_forward_and_backward(emulated_device, rows, D, dtype):
    _layer_norm_case(emulated_device, np.random.default_rng(SEED), rows, D, dtype)


def test_layernorm_16bit_on_wave64(emulated_wave64_device):
    # 32-thread groups inside 64-lane wavefronts; five rows leave groups of the last wave idle
    rng = np.random.default_rng(SEED)
    _layer_norm_case(emulated_wave64_device, rng, 5, 64, "float16")
    _layer_norm_case(emulated_wave64_device, rng, 2, 301, "float16", with_weight=False)
    try:
        import ml_dtypes
    except ImportError:
        return
    _layer_norm_case(emulated_wave64_device, rng, 3, 600, ml_dtypes.bfloat16)


def test_layernorm_16bit_block_of_128_on_wave64(emulated_wave64_device):
    # rows of 4096 in blocks of 128 (the bench case's shape class) with 16-byte loads of rows
    # and parameters, then rows of 2001 (not a multiple of 8: one element at a time) with the
    # parameters one element off alignment
    dev = emulated_wave64_device
    _layer_norm_case(dev, np.random.default_rng(SEED), 3, 4096, "float16")
    fwd, bwd = dev.fake.launches[:2]
    assert (fwd.name, bwd.name) == (_layernorm.kernel_name("forward", "ra_half", 128, True),
                                    _layernorm.kernel_name("backward", "ra_half", 128, True))
    assert (int(fwd.args[4]), int(bwd.args[5]), fwd.block[0]) == (1, 1, 128)
    _layer_norm_case(dev, np.random.default_rng(SEED), 2, 2001, "float16", misaligned_params=True)
    fwd, bwd = dev.fake.launches[-3:-1]
    assert (fwd.name, bwd.name) == ("ra_miopen_ln_forward<ra_half, 128, false>",
                                    "ra_miopen_ln_backward<ra_half, 128, false>")
    assert (int(fwd.args[4]), int(bwd.args[5])) == (0, 0)


def test_layernorm_misaligned_parameters(emulated_device):
    # 16-byte loads of the rows, the weight and bias one at a time (params16 = 0)
    dev = emulated_device
    _layer_norm_case(dev, np.random.default_rng(SEED), 3, 1500, "float32", misaligned_params=True)
    fwd = dev.fake.launches[0]
    assert (fwd.name, int(fwd.args[4])) == ("ra_miopen_ln_forward<float, 128, true>", 0)


# (shape, groups, layout): channels first with several splits per group (vector path) and an
# odd plane (scalar path), channels last with vector runs and with odd groups, (N, C)
GN_CASES = [((2, 4, 2100), 2, "NCHW", "float32"), ((2, 6, 3, 5), 3, "NCHW", "float64"),
            ((2, 5, 3, 8), 2, "NHWC", "float32"), ((3, 7, 9), 3, "NHWC", "float64"), ((5, 6), 3, "NCHW", "float64")]


@pytest.mark.parametrize("shape,groups,layout,dtype", GN_CASES)
def test_groupnorm_forward_and_backward(emulated_device, shape, groups, layout, dtype):
    rng = np.random.default_rng(SEED)
    dev = emulated_device
    C = _channels(layout, shape)
    x = (2.0 + rng.standard_normal(shape)).astype(dtype)
    w, b = rng.standard_normal(C).astype(dtype), rng.standard_normal(C).astype(dtype)
    y, mean, invstd = miopen.groupnorm_forward(dev.array(x), groups, dev.array(w), dev.array(b), 1e-5, layout=layout)
    want = ref.group_norm(x, groups, w, b, 1e-5, layout)
    _close(y, want[0], dtype)
    _close(mean, want[1], dtype)
    _close(invstd, want[2], dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    dx, dw, db = miopen.groupnorm_backward(dev.array(dy), dev.array(x), groups, dev.array(w), mean, invstd,
                                           layout=layout)
    want = ref.group_norm_backward(dy, x, groups, np.asarray(mean), np.asarray(invstd), w, layout)
    _close(dx, want[0], dtype)
    _close(dw, want[1], dtype)
    _close(db, want[2], dtype)


def test_groupnorm_16bit_on_wave64(emulated_wave64_device):
    rng = np.random.default_rng(SEED)
    dev = emulated_wave64_device
    for shape, layout in (((2, 4, 16), "NCHW"), ((2, 3, 8), "NHWC")):
        x = rng.standard_normal(shape).astype(np.float16)
        y, mean, invstd = miopen.groupnorm_forward(dev.array(x), 2, None, None, 1e-5, layout=layout)
        want = ref.group_norm(x, 2, None, None, 1e-5, layout)
        _close(y, want[0], "float16")
        dy = rng.standard_normal(shape).astype(np.float16)
        dx, dw, db = miopen.groupnorm_backward(dev.array(dy), dev.array(x), 2, None, mean, invstd, layout=layout)
        want = ref.group_norm_backward(dy, x, 2, np.asarray(mean), np.asarray(invstd), None, layout)
        assert dw is None
        _close(dx, want[0], "float16")
        _close(db, want[2], "float32", scale=10.0)


def _norm_checks():
    from rocarray._core import harness

    harness.load_all()  # the command line loads them; a test run on its own must too
    return [c for c in harness.self_checks() if c.name in ("miopen.batch_norm", "miopen.layer_norm",
                                                           "miopen.group_norm")]


def test_norm_checks_and_cases_are_registered():
    from rocarray._core import harness

    assert len(_norm_checks()) == 3
    cases = {c.name: c for c in harness.bench_cases()}
    case = cases["miopen.bn_train_f32_64x256x56x56_nchw"]
    assert case.bytes_moved == 2 * 4 * 64 * 256 * 56 * 56 and case.memory_bound
    assert {"miopen.bn_train_f32_64x256x56x56_nhwc", "miopen.ln_8192x4096_f16", "miopen.ln_8192x4096_f32"} <= set(cases)


@pytest.mark.slow  # about 100 launches of 256 emulated threads: a minute or two on two cores
def test_norm_self_checks_pass_on_wave64(emulated_wave64_device):
    rng = np.random.default_rng(SEED)
    for check in _norm_checks():
        check.run(rng)


def _check_directional_derivatives(f, x, g, dx, rng, h=1e-6):
    """sum(f(x) * g) differentiated along random directions by central differences (float64)
    against the analytic gradient dx."""
    for _ in range(3):
        d = rng.standard_normal(x.shape)
        numeric = ((f(x + h * d) - f(x - h * d)) * g).sum() / (2 * h)
        np.testing.assert_allclose((dx * d).sum(), numeric, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("family", ["batch", "layer", "group"])
def test_backward_matches_finite_differences(emulated_device, family):
    rng = np.random.default_rng(SEED)
    dev = emulated_device
    x = rng.standard_normal((3, 4, 5)) + 1.0
    g = rng.standard_normal(x.shape)
    w, b = rng.standard_normal(4), rng.standard_normal(4)
    wl, bl = rng.standard_normal(5), rng.standard_normal(5)
    if family == "batch":
        def forward(v):
            return np.asarray(miopen.batchnorm_forward_training(dev.array(v), dev.array(w), dev.array(b), None, None,
                                                                0.1, 1e-5)[0])
        _, mean, invstd = miopen.batchnorm_forward_training(dev.array(x), dev.array(w), dev.array(b), None, None, 0.1,
                                                            1e-5)
        dx, dw, db = miopen.batchnorm_backward(dev.array(g), dev.array(x), dev.array(w), mean, invstd)
    elif family == "layer":
        def forward(v):
            return np.asarray(miopen.layernorm_forward(dev.array(v), dev.array(wl), dev.array(bl), 1e-5,
                                                       norm_size=5)[0])
        _, mean, invstd = miopen.layernorm_forward(dev.array(x), dev.array(wl), dev.array(bl), 1e-5, norm_size=5)
        dx, dw, db = miopen.layernorm_backward(dev.array(g), dev.array(x), dev.array(wl), mean, invstd, norm_size=5)
    else:
        def forward(v):
            return np.asarray(miopen.groupnorm_forward(dev.array(v), 2, dev.array(w), dev.array(b), 1e-5)[0])
        _, mean, invstd = miopen.groupnorm_forward(dev.array(x), 2, dev.array(w), dev.array(b), 1e-5)
        dx, dw, db = miopen.groupnorm_backward(dev.array(g), dev.array(x), 2, dev.array(w), mean, invstd)
    _check_directional_derivatives(forward, x, g, np.asarray(dx), rng)
    y0 = forward(x)
    # the output is affine in the bias (gradient sum(g) per channel) and in the weight
    axes = (0, 1) if family == "layer" else (0, 2)
    np.testing.assert_allclose(np.asarray(db), g.sum(axis=axes), rtol=1e-12, atol=1e-12)
    scale = wl if family == "layer" else w
    shift = bl if family == "layer" else b
    shape = (1, 1, 5) if family == "layer" else (1, 4, 1)
    xhat = (y0 - shift.reshape(shape)) / scale.reshape(shape)
    np.testing.assert_allclose(np.asarray(dw), (g * xhat).sum(axis=axes), rtol=1e-9, atol=1e-9)
