"""rocarray.nn normalization on the GPU against torch (float64 where torch allows; 16-bit inputs
against torch's float64 result on the same rounded inputs) and the NumPy float64 references:
odd sizes, batch 1, 1-D to 3-D, both layouts, every dtype, outputs poisoned before the call where
the API takes them, running statistics, saved statistics and every gradient."""

import contextlib

import numpy as np
import pytest

from miopen import norm_reference as ref

import rocarray as ra

pytestmark = pytest.mark.gpu

DTYPES = ["float16", "bfloat16", "float32", "float64"]
TOL = {"float16": 6e-3, "bfloat16": 5e-2, "float32": 3e-5, "float64": 1e-11}


def _dtype(name):
    if name == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def _acc(dt):
    return np.float64 if dt == np.float64 else np.float32


def _close(got, want, name, scale=None):
    import cupy

    got = cupy.asnumpy(got).astype(np.float64)
    want = np.asarray(want, np.float64)
    tol = TOL[name]
    scale = max(1.0, float(np.abs(want).max()) if scale is None else scale)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def _training_inputs(rng, shape, dt):
    """x (on the device, ``dt``, off-centre), weight and bias (device) and the running statistics
    (host) of a channels-first batch-norm training problem."""
    import cupy

    C, acc = shape[1], _acc(dt)
    x = cupy.asarray((0.5 + 2 * rng.standard_normal(shape)).astype(dt))
    w, b = cupy.asarray(rng.standard_normal(C).astype(acc)), cupy.asarray(rng.standard_normal(C).astype(acc))
    return x, w, b, rng.standard_normal(C).astype(acc), (0.5 + rng.random(C)).astype(acc)


@contextlib.contextmanager
def launched_names():
    """The names of the kernels launched inside the block (a launch-layer observer)."""
    from rocarray._core import launch

    names = []

    class _Names:
        def begin(self, name, grid, block, shared):
            names.append(str(name))

        def end(self, token):
            pass

        def note(self, nbytes, flops):
            pass

    before, launch.observer = launch.observer, _Names()
    try:
        yield names
    finally:
        launch.observer = before


def _torch():
    return pytest.importorskip("torch")


def _t(a):
    torch = _torch()
    return None if a is None else torch.from_numpy(np.asarray(a, np.float64)).cuda()


def _moved(x, layout):
    """The channels-first array of x (torch's layout)."""
    return np.moveaxis(x, -1, 1) if layout == "NHWC" and x.ndim > 2 else x


def _unmoved(x, layout):
    return np.moveaxis(x, 1, -1) if layout == "NHWC" and x.ndim > 2 else x


BN_SHAPES = [(1, 3, 17), (4, 5), (2, 7, 9, 11), (3, 4, 3, 5, 2), (8, 64, 28, 28), (2, 13, 1, 1), (5, 257, 3)]


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", BN_SHAPES)
def test_batch_norm_training_forward_backward_matches_torch(rng, shape, dtype, layout):
    torch = _torch()
    import cupy

    dt = _dtype(dtype)
    cl = shape if layout == "NCHW" or len(shape) == 2 else (shape[0],) + shape[2:] + (shape[1],)
    C = shape[1]
    x = (0.5 + 2 * rng.standard_normal(cl)).astype(dt)
    w, b = rng.standard_normal(C).astype(_acc(dt)), rng.standard_normal(C).astype(_acc(dt))
    rm, rv = rng.standard_normal(C).astype(_acc(dt)), (0.5 + rng.random(C)).astype(_acc(dt))
    d_rm, d_rv = cupy.asarray(rm), cupy.asarray(rv)
    y, mean, invstd = ra.nn.batch_norm(cupy.asarray(x), d_rm, d_rv, cupy.asarray(w), cupy.asarray(b), True, 0.3, 1e-4,
                                       layout=layout, return_stats=True)
    xt = _t(_moved(x.astype(np.float64), layout)).requires_grad_()
    t_rm, t_rv = _t(rm), _t(rv)
    wt, bt = _t(w).requires_grad_(), _t(b).requires_grad_()
    yt = torch.nn.functional.batch_norm(xt, t_rm, t_rv, wt, bt, True, 0.3, 1e-4)
    _close(y, _unmoved(yt.detach().cpu().numpy(), layout), dtype)
    _close(d_rm, t_rm.cpu().numpy(), "float32" if dt.itemsize == 2 else dtype)
    _close(d_rv, t_rv.cpu().numpy(), "float32" if dt.itemsize == 2 else dtype)
    want = ref.batch_norm_training(x.astype(np.float64), w, b, None, None, 0.3, 1e-4, layout)
    _close(mean, want[1], "float32" if dt.itemsize == 2 else dtype)
    _close(invstd, want[2], "float32" if dt.itemsize == 2 else dtype)
    dy = rng.standard_normal(cl).astype(dt)
    yt.backward(_t(_moved(dy.astype(np.float64), layout)))
    dx, dw, db = ra.nn.batch_norm_backward(cupy.asarray(dy), cupy.asarray(x), cupy.asarray(w), mean, invstd,
                                           layout=layout)
    assert dx.dtype == dt and dw.dtype == w.dtype
    _close(dx, _unmoved(xt.grad.cpu().numpy(), layout), dtype)
    n = x.size // C
    _close(dw, wt.grad.cpu().numpy(), "float32" if dt.itemsize == 2 else dtype, scale=float(np.sqrt(n)))
    _close(db, bt.grad.cpu().numpy(), "float32" if dt.itemsize == 2 else dtype, scale=float(np.sqrt(n)))


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_inference_matches_torch(rng, dtype, layout):
    torch = _torch()
    import cupy

    dt = _dtype(dtype)
    shape = (3, 11, 7, 5)
    cl = shape if layout == "NCHW" else (3, 7, 5, 11)
    x = rng.standard_normal(cl).astype(dt)
    rm, rv = rng.standard_normal(11), 0.5 + rng.random(11)
    y = ra.nn.batch_norm(cupy.asarray(x), cupy.asarray(rm.astype(dt)), cupy.asarray(rv.astype(dt)), layout=layout)
    rm16, rv16 = rm.astype(dt).astype(np.float64), rv.astype(dt).astype(np.float64)
    yt = torch.nn.functional.batch_norm(_t(_moved(x.astype(np.float64), layout)), _t(rm16), _t(rv16), training=False)
    _close(y, _unmoved(yt.cpu().numpy(), layout), dtype)


LN_SHAPES = [((7, 1), 1), ((3, 33), 1), ((5, 512), 1), ((2, 3, 513), 1), ((4, 4096), 1), ((2, 5, 3, 7), 2),
             ((3, 9000), 1), ((1, 2, 1031), 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,k", LN_SHAPES)
def test_layer_norm_forward_backward_matches_torch(rng, shape, k, dtype):
    torch = _torch()
    import cupy

    dt = _dtype(dtype)
    ns = shape[len(shape) - k:]
    x = (1 + rng.standard_normal(shape)).astype(dt)
    w, b = rng.standard_normal(ns).astype(dt), rng.standard_normal(ns).astype(dt)
    y, mean, invstd = ra.nn.layer_norm(cupy.asarray(x), ns, cupy.asarray(w), cupy.asarray(b), 1e-5, return_stats=True)
    xt = _t(x).requires_grad_()
    wt, bt = _t(w).requires_grad_(), _t(b).requires_grad_()
    yt = torch.nn.functional.layer_norm(xt, ns, wt, bt, 1e-5)
    _close(y, yt.detach().cpu().numpy(), dtype)
    assert mean.shape == shape[: len(shape) - k] + (1,) * k
    dy = rng.standard_normal(shape).astype(dt)
    yt.backward(_t(dy))
    dx, dw, db = ra.nn.layer_norm_backward(cupy.asarray(dy), cupy.asarray(x), ns, mean, invstd, cupy.asarray(w),
                                           cupy.asarray(b))
    _close(dx, xt.grad.cpu().numpy(), dtype)
    rows = x.size // int(np.prod(ns))
    _close(dw, wt.grad.cpu().numpy(), dtype, scale=float(np.sqrt(rows)) * 4)
    _close(db, bt.grad.cpu().numpy(), dtype, scale=float(np.sqrt(rows)) * 4)


GN_CASES = [((1, 6, 17), 3), ((2, 8, 5, 7), 4), ((3, 32, 9, 9), 8), ((2, 12, 3, 4, 5), 12), ((4, 6), 2),
            ((2, 64, 16, 16), 32), ((1, 9, 33, 1), 1)]


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,groups", GN_CASES)
def test_group_norm_forward_backward_matches_torch(rng, shape, groups, dtype, layout):
    torch = _torch()
    import cupy

    dt = _dtype(dtype)
    cl = shape if layout == "NCHW" or len(shape) == 2 else (shape[0],) + shape[2:] + (shape[1],)
    C = shape[1]
    x = (1 + rng.standard_normal(cl)).astype(dt)
    w, b = rng.standard_normal(C).astype(np.float32), rng.standard_normal(C).astype(np.float32)
    y, mean, invstd = ra.nn.group_norm(cupy.asarray(x), groups, cupy.asarray(w), cupy.asarray(b), layout=layout,
                                       return_stats=True)
    xt = _t(_moved(x.astype(np.float64), layout)).requires_grad_()
    wt, bt = _t(w).requires_grad_(), _t(b).requires_grad_()
    yt = torch.nn.functional.group_norm(xt, groups, wt, bt, 1e-5)
    _close(y, _unmoved(yt.detach().cpu().numpy(), layout), dtype)
    dy = rng.standard_normal(cl).astype(dt)
    yt.backward(_t(_moved(dy.astype(np.float64), layout)))
    dx, dw, db = ra.nn.group_norm_backward(cupy.asarray(dy), cupy.asarray(x), groups, mean, invstd, cupy.asarray(w),
                                           layout=layout)
    _close(dx, _unmoved(xt.grad.cpu().numpy(), layout), dtype)
    n = x.size // C
    wide = w.dtype.name   # dw and db come in the weight's dtype
    assert dw.dtype == w.dtype and db.dtype == w.dtype
    _close(dw, wt.grad.cpu().numpy(), wide, scale=float(np.sqrt(n)) * 4)
    _close(db, bt.grad.cpu().numpy(), wide, scale=float(np.sqrt(n)) * 4)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_instance_norm_matches_torch(rng, layout):
    torch = _torch()
    import cupy

    shape = (3, 5, 7, 6)
    cl = shape if layout == "NCHW" else (3, 7, 6, 5)
    x = rng.standard_normal(cl)
    rm, rv = rng.standard_normal(5), 0.5 + rng.random(5)
    d_rm, d_rv = cupy.asarray(rm), cupy.asarray(rv)
    y = ra.nn.instance_norm(cupy.asarray(x), d_rm, d_rv, momentum=0.2, layout=layout)
    t_rm, t_rv = _t(rm), _t(rv)
    yt = torch.nn.functional.instance_norm(_t(_moved(x, layout)), t_rm, t_rv, momentum=0.2)
    _close(y, _unmoved(yt.cpu().numpy(), layout), "float64")
    _close(d_rm, t_rm.cpu().numpy(), "float32")
    _close(d_rv, t_rv.cpu().numpy(), "float32")


def test_batch_norm_large_channel_count_and_noncontiguous_input(rng):
    import cupy

    x = rng.standard_normal((6, 3000)).astype(np.float32)
    base = cupy.asarray(np.ascontiguousarray(x.T)).T  # a transposed view: copied once at the top
    y, mean, invstd = ra.nn.batch_norm(base, None, None, training=True, return_stats=True)
    want = ref.batch_norm_training(x, None, None, None, None, 0.1, 1e-5)
    _close(y, want[0], "float32")
    _close(mean, want[1], "float32")


def test_norm_self_checks_pass(rng):
    from rocarray._core import harness

    harness.load_all()
    checks = [c for c in harness.self_checks() if c.name in ("miopen.batch_norm", "miopen.batch_norm_pipe",
                                                             "miopen.layer_norm", "miopen.group_norm")]
    assert len(checks) == 4
    for check in checks:
        check.run(rng)


# Shapes whose statistics run at the device's full grid with many turns of each thread's ring of
# loads: 16-byte vectors in both layouts, an odd plane (the channels-first scalar walk), one
# channel of one image, and channels last with a channel count that is not a multiple of the
# vector (scalars); (shape in NCHW order, layouts)
BN_STREAM_SHAPES = [((32, 64, 56, 56), ("NCHW", "NHWC")), ((16, 24, 55, 55), ("NCHW",)), ((1, 1, 1023, 1027), ("NCHW",)),
                    ((16, 37, 28, 28), ("NHWC",))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,layouts", BN_STREAM_SHAPES)
def test_batch_norm_statistics_over_the_full_grid(rng, shape, layouts, dtype):
    import cupy

    from rocarray import miopen

    dt = _dtype(dtype)
    C = shape[1]
    for layout in layouts:
        cl = shape if layout == "NCHW" else (shape[0],) + shape[2:] + (shape[1],)
        x = (1.5 + 2 * rng.standard_normal(cl)).astype(dt)
        rm, rv = rng.standard_normal(C).astype(_acc(dt)), (0.5 + rng.random(C)).astype(_acc(dt))
        d_rm, d_rv = cupy.asarray(rm), cupy.asarray(rv)
        out = cupy.asarray(np.full(cl, np.nan, dt))  # poisoned (ml_dtypes builds the bfloat16 NaNs)
        y, mean, invstd = miopen.batchnorm_forward_training(cupy.asarray(x), None, None, d_rm, d_rv, 0.1, 1e-5,
                                                            layout=layout, out=out)
        want = ref.batch_norm_training(x.astype(np.float64), None, None, rm, rv, 0.1, 1e-5, layout)
        stat = "float32" if dt.itemsize == 2 else dtype
        _close(y, want[0], dtype)
        for got, exp in zip((mean, invstd, d_rm, d_rv), want[1:]):
            _close(got, exp, stat)
        again = miopen.batchnorm_forward_training(cupy.asarray(x), None, None, None, None, 0.1, 1e-5, layout=layout)
        assert bool((again[1] == mean).all()) and bool((again[2] == invstd).all())  # fixed merge order


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_batch_norm_statistics_of_a_large_mean_match_torch(rng, layout):
    # float32 data a thousand standard deviations from zero: the grouped pairwise folds keep the
    # variance to the float32 rounding of the mean (relative 2^-24 * 1000 * a small factor)
    torch = _torch()
    import cupy

    shape = (32, 64, 28, 28)
    cl = shape if layout == "NCHW" else (32, 28, 28, 64)
    x = (1000.0 + rng.standard_normal(cl)).astype(np.float32)
    y, mean, invstd = ra.nn.batch_norm(cupy.asarray(x), None, None, training=True, layout=layout, return_stats=True)
    want = ref.batch_norm_training(x.astype(np.float64), None, None, None, None, 0.1, 1e-5, layout)
    np.testing.assert_allclose(cupy.asnumpy(invstd).astype(np.float64), want[2], rtol=5e-5)
    yt = torch.nn.functional.batch_norm(torch.from_numpy(_moved(x, layout)).cuda(), None, None, training=True)
    ours = np.abs(cupy.asnumpy(y).astype(np.float64) - want[0]).max()
    theirs = np.abs(_unmoved(yt.cpu().numpy(), layout).astype(np.float64) - want[0]).max()
    assert ours <= max(2e-3, 2 * theirs)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_batch_norm_writes_every_output_element_and_is_deterministic(rng, layout):
    import cupy

    from rocarray import miopen

    shape = (7, 33, 5, 9) if layout == "NCHW" else (7, 5, 9, 33)
    x = cupy.asarray(rng.standard_normal(shape).astype(np.float32))
    out = cupy.full(shape, np.nan, np.float32)
    y, mean, invstd = miopen.batchnorm_forward_training(x, None, None, None, None, 0.1, 1e-5, layout=layout, out=out)
    assert y is out and not bool(cupy.isnan(out).any())
    y2, mean2, invstd2 = miopen.batchnorm_forward_training(x, None, None, None, None, 0.1, 1e-5, layout=layout)
    for a, b in ((y, y2), (mean, mean2), (invstd, invstd2)):
        assert bool((a == b).all())  # no floating-point atomics: the same bits on every run
    out = cupy.full(shape, np.nan, np.float32)
    miopen.batchnorm_forward_inference(x, None, None, mean, 1 / (invstd * invstd), 0.0, layout=layout, out=out)
    assert not bool(cupy.isnan(out).any())


def test_batch_norm_training_of_a_misaligned_input_takes_the_two_launch_path(rng, monkeypatch):
    import cupy

    from rocarray import miopen
    from rocarray.miopen import _batchnorm

    monkeypatch.setattr(_batchnorm, "PIPE_TRAINING", True)
    monkeypatch.setattr(_batchnorm, "PIPE_MIN_BYTES", 0)

    shape = (9, 3, 60, 64)
    x = rng.standard_normal(shape).astype(np.float32)
    base = cupy.asarray(np.concatenate([np.zeros(1, np.float32), x.ravel()]))
    xd = base[1:].reshape(shape)
    with launched_names() as names:
        y, mean, invstd = miopen.batchnorm_forward_training(xd, None, None, None, None, 0.1, 1e-5)
    assert names and not any("train_pipe" in n for n in names)
    want = ref.batch_norm_training(x.astype(np.float64), None, None, None, None, 0.1, 1e-5)
    _close(y, want[0], "float32")
    _close(mean, want[1], "float32")


# The channels-first training forward on the pipeline of resident blocks (PIPE_TRAINING), any
# input size (PIPE_MIN_BYTES 0): the bench's problem (26 items a channel at 8 vectors a thread,
# 28 at 7); channels of 34,560 in one step; 37 odd channels with runs of 2632; N = 1; channels of
# 401,408 float32 (49 items, 8 channels a step on three blocks a multiprocessor); an odd plane
# (runs of 330 vectors, items straddling them).
BN_PIPE_CASES = [(64, 256, 56, 56), (9, 3, 60, 64), (13, 37, 47, 56), (1, 3, 300, 512), (32, 20, 112, 112),
                 (5, 11, 33, 40)]


@pytest.mark.parametrize("items,depth", [(8, 1), (7, 1), (6, 2), (None, 1)])  # None: the shape pipe_shape picks
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", BN_PIPE_CASES)
def test_batch_norm_training_on_the_pipeline(rng, monkeypatch, shape, dtype, items, depth):
    import cupy

    from rocarray import miopen
    from rocarray.miopen import _batchnorm

    device = cupy.cuda.runtime.getDevice()
    dt = _dtype(dtype)
    if not _batchnorm._pipe_kernel(dt, items or 8, depth).cooperative_available(device):
        pytest.skip("no cooperative launch on this device")
    monkeypatch.setattr(_batchnorm, "PIPE_TRAINING", True)
    monkeypatch.setattr(_batchnorm, "PIPE_MIN_BYTES", 0)
    monkeypatch.setattr(_batchnorm, "PIPE_ITEMS", items)
    monkeypatch.setattr(_batchnorm, "PIPE_DEPTH", depth)
    picked = _batchnorm.pipe_shape(shape, "NCHW", dt, lambda i, d: _batchnorm.pipe_blocks(device, dt, i, d))
    assert picked is not None and (items is None or picked[:2] == (items, depth))
    C = shape[1]
    x, w, b, rm0, rv0 = _training_inputs(rng, shape, dt)
    runs = []
    with launched_names() as names:
        for _ in range(2):  # twice: a new epoch for the flags, the same bits
            rm, rv = cupy.asarray(rm0), cupy.asarray(rv0)
            out = cupy.asarray(np.full(shape, np.nan, dt))  # poisoned
            y, mean, invstd = miopen.batchnorm_forward_training(x, w, b, rm, rv, 0.1, 1e-5, out=out)
            _batchnorm.check_pipe(device)
            assert y is out
            runs.append((y, mean, invstd, rm, rv))
    assert names and all(n.endswith(f", {picked[0]}, {picked[1]}>") for n in names if "train_pipe" in n), names
    assert all("train_pipe" in n for n in names), names
    for first, again in zip(*runs):
        assert cupy.asnumpy(first).tobytes() == cupy.asnumpy(again).tobytes()
    x64 = x.astype(cupy.float64)
    mu, var = x64.mean(axis=(0, 2, 3)), x64.var(axis=(0, 2, 3))
    n = x.size // C
    invstd64 = 1 / cupy.sqrt(var + 1e-5)
    y64 = (x64 - mu[None, :, None, None]) * (invstd64 * w.astype(cupy.float64))[None, :, None, None] \
        + b.astype(cupy.float64)[None, :, None, None]
    stat = "float32" if dt.itemsize == 2 else dtype
    y, mean, invstd, rm, rv = runs[0]
    _close(y, cupy.asnumpy(y64), dtype)
    _close(mean, cupy.asnumpy(mu), stat)
    _close(invstd, cupy.asnumpy(invstd64), stat)
    _close(rm, 0.9 * rm0 + 0.1 * cupy.asnumpy(mu), stat)
    _close(rv, 0.9 * rv0 + 0.1 * cupy.asnumpy(var) * n / (n - 1), stat)
