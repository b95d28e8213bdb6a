"""What a 1x1 convolution launches, on the CPU (launchfake's recording device posing as an sm_90
GPU of 132 multiprocessors with its 227 KiB of opt-in shared memory; tensor maps are stand-ins).

The two bench problems (``rocarray/_checks/miopen_conv.py``: N 64, C 256 -> K 256, 56 x 56) through
``ra.nn.conv2d`` in the default find mode: which kernels, how many launches, their sizes and
operands; and that the fast-mode heuristic sends only forward 1x1 convolutions of one group,
stride 1 and no padding to "gemm", and of those not the 16-bit channels-last ones the warpgroup
convolution takes on sm_90. On a GPU: those routes (sizes past the three-TF32 and the
16-bit copy thresholds) against a NumPy float64 reference.
"""

import numpy as np
import pytest

import launchfake
from conftest import assert_close, random_array, to_device, to_host
import miopen_conv_host as host

import rocarray as ra
from rocarray import miopen
from rocarray._core import tuning
from rocarray.miopen import _conv_find, _conv_registry
from rocarray.rocblas._gemm import tensor_maps, tf32x3, wgmma

N, C, K, HW = 64, 256, 256, 56
P = N * HW * HW  # output positions of the batch
fake_device = launchfake.fake_device  # the fixture


@pytest.fixture
def sm90(fake_device, monkeypatch, tmp_path):
    """The fake device with sm_90's opt-in shared memory, stand-in tensor maps recorded in
    ``device.maps``, an empty find-db and the fast find mode."""
    launchfake.with_fresh_search(fake_device, monkeypatch, tmp_path)

    def operand_map(*args):
        fake_device.maps.append(("map",) + args)
        return np.zeros(1, tensor_maps.TENSOR_MAP)

    def blocked_operand_map(*args):
        fake_device.maps.append(("blocked",) + args)
        return np.zeros(1, tensor_maps.TENSOR_MAP)
    monkeypatch.setattr(tensor_maps, "operand_map", operand_map)
    monkeypatch.setattr(tensor_maps, "blocked_operand_map", blocked_operand_map)
    yield fake_device
    tuning.clear_cache()


def _address(arg):
    """A kernel argument as the launch passes it: the address of an array or a memory pointer."""
    data = getattr(arg, "data", None)
    return data.ptr if hasattr(data, "ptr") else getattr(arg, "ptr", arg)


def _bench_tensors(dev, dtype, layout, bias):
    if layout == "NHWC":
        x, w = dev.array((N, HW, HW, C), dtype), dev.array((K, 1, 1, C), dtype)
    else:
        x, w = dev.array((N, C, HW, HW), dtype), dev.array((K, C, 1, 1), dtype)
    return x, w, (dev.array((K,), dtype) if bias else None)


@pytest.mark.parametrize("bias", [False, True], ids=["plain", "bias_relu"])
def test_f16_nhwc_is_one_warpgroup_gemm_with_the_epilogue_fused(sm90, bias):
    # y (K x N H W, column-major: NHWC) = w^T x: one product over every output position, both
    # operands k-major (channels contiguous), the 128 x 256 tile, one persistent wave
    dev = sm90
    x, w, b = _bench_tensors(dev, "float16", "NHWC", bias)
    for _ in range(2):  # the first call and a warm one launch the same
        dev.launches.clear()
        dev.maps.clear()
        y = ra.nn.conv2d(x, w, b, layout="NHWC", activation="relu" if bias else None, algo="gemm")
        assert dev.names() == ["ra_rocblas_gemm_wgmma<ra_half, true, true, 256>"]
        launch = dev.launches[0]
        assert launch.grid == (132, 1, 1) and launch.block == (wgmma.block_threads(), 1, 1)
        assert launch.shared == wgmma.shared_bytes(256, 4)
        args = launch.args
        assert (args[2], args[3], args[4], args[5]) == (K, P, C, 1)   # m, n, k, batch
        assert args[8] == y.data.ptr and args[9] == K                   # C = y, ldc = K
        assert (args[11], args[12], args[13]) == (4, 1, C // 64)        # 4 stages, k not split
        assert args[15] == (b.data.ptr if bias else 0) and args[16] == (1 if bias else 0)  # bias, relu
        assert dev.maps == [("map", w.data.ptr, True, K, C, C, 0, 1, 128),
                            ("map", x.data.ptr, True, P, C, C, 0, 1, 256)]


@pytest.mark.parametrize("bias", [False, True], ids=["plain", "bias"])
def test_f32_nchw_is_a_weight_copy_and_one_three_tf32_gemm(sm90, bias):
    # per image y[n] (H W x K, column-major: NCHW) = x[n] (H W x C) w^T: a strided batch whose w is
    # shared (batch stride 0). No tensor map holds that stride, so the weights are copied once per
    # image (one launch, 16.8 MB) and the three-TF32 kernel that splits inside runs on the batch.
    # rocblas's bias is per row of C (here an output position), so a bias takes the epilogue pass.
    dev = sm90
    x, w, b = _bench_tensors(dev, "float32", "NCHW", bias)
    for _ in range(2):
        dev.launches.clear()
        dev.maps.clear()
        y = ra.nn.conv2d(x, w, b)
        fused = tf32x3.fused_kernel_name(False, False, 128, 128, True)
        assert dev.names() == [wgmma.PACK_KERNEL, fused] + (["ra_miopen_conv_epilogue<float>"] if bias else [])
        copy, gemm = dev.launches[:2]
        span = 2 * C * K   # the weights as 16-bit halves
        assert copy.args[:3] == (span, 1, N) and copy.args[3] == w.data.ptr and copy.args[5] == 0
        assert copy.args[8] == span   # entry b of the copies starts b C K floats in
        copies = copy.args[6]
        assert gemm.grid == (132, 1, 1) and gemm.block == (tf32x3.FUSED_BLOCK, 1, 1)
        assert (gemm.args[2], gemm.args[3], gemm.args[4], gemm.args[5]) == (HW * HW, K, C, N)
        assert gemm.args[8] == y.data.ptr and (gemm.args[9], gemm.args[10]) == (HW * HW, K * HW * HW)
        assert gemm.args[12] == 1   # k not split: no finish launch
        assert dev.maps == [("blocked", x.data.ptr, HW * HW, C, HW * HW, C * HW * HW, N, 128),
                            ("map", copies, True, K, C, C, C * K, N, 128, 4)]


@pytest.mark.parametrize("dtype, layout, want", [("float16", "NHWC", "implicit_gemm"), ("float32", "NCHW", "gemm"),
                                                 ("float16", "NCHW", "gemm")])
def test_fast_mode_choice_for_the_bench_problems(sm90, dtype, layout, want):
    """gemm for a pointwise problem, except where the warpgroup convolution takes it (16-bit
    channels last on sm_90)."""
    p = host.problem("forward", N, C, K, (HW, HW), (1, 1), dtype=dtype, layout=layout)
    candidates = _conv_registry.applicable(p)
    assert "implicit_gemm" in [a.name for a in candidates]
    assert _conv_find.pointwise_product(p)
    assert _conv_find.heuristic(p, candidates).name == want
    x, w, y = (sm90.array(s, p.dtype) for s in (p.x_shape(), p.w_shape(), p.y_shape()))
    miopen.convolution_forward(p, x, w, out=y)
    implicit = [name for name in sm90.names() if "igemm" in name or "conv_wgmma" in name]
    assert bool(implicit) == (want == "implicit_gemm")
    assert not any("rocblas_gemm" in name for name in sm90.names()) or want == "gemm"


@pytest.mark.parametrize("case", ["3x3", "stride2", "padded", "grouped", "depthwise", "backward_data",
                                  "backward_weights"])
def test_other_problems_keep_their_heuristic_choice(case):
    kw = dict(dtype="float16", layout="NHWC")
    direction, flt, extra = "forward", (1, 1), {}
    if case == "3x3":
        flt, extra = (3, 3), dict(pad=1)
    elif case == "stride2":
        extra = dict(stride=2)
    elif case == "padded":
        extra = dict(pad=1)
    elif case in ("grouped", "depthwise"):
        extra = dict(groups=2 if case == "grouped" else C)
    else:
        direction = case
    k = C if case == "depthwise" else K
    p = host.problem(direction, N, C, k, (HW, HW), flt, **extra, **kw)
    candidates = _conv_registry.applicable(p)
    assert not _conv_find.pointwise_product(p)
    want = next(name for name in _conv_find.PREFERENCE if name in [a.name for a in candidates])
    assert _conv_find.heuristic(p, candidates).name == want


def test_small_pointwise_problems_stay_direct():
    p = host.problem("forward", 1, 8, 8, (8, 8), (1, 1), dtype="float32")
    assert _conv_find.pointwise_product(p) and p.flops() < _conv_find.SMALL_FLOPS
    assert _conv_find.heuristic(p, _conv_registry.applicable(p)).name == "direct"


def test_f16_nchw_copies_the_shared_weights_for_the_warpgroup_gemm(sm90):
    # not a bench problem; the same shared weights as float32 NCHW: past PACK_MIN_FLOPS they are
    # copied once per image (the padded-copy kernel) and the wgmma kernel runs the batch, where the
    # tensor map of a zero batch stride failed and the mma.sync kernel ran instead
    dev = sm90
    x, w, _ = _bench_tensors(dev, "float16", "NCHW", False)
    for _ in range(2):
        dev.launches.clear()
        dev.maps.clear()
        ra.nn.conv2d(x, w)
        assert dev.names() == [wgmma.PACK_KERNEL, "ra_rocblas_gemm_wgmma<ra_half, false, true, 256>"]
        copy, gemm = dev.launches
        args = tuple(_address(a) for a in copy.args)   # an immediate launch: arrays and memory pointers
        assert args[:6] == (C, K, N, w.data.ptr, C, 0) and args[7:] == (C, C * K)
        assert (gemm.args[2], gemm.args[3], gemm.args[4], gemm.args[5]) == (HW * HW, K, C, N)
        assert dev.maps[1] == ("map", args[6], True, K, C, C, C * K, N, 256)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, layout", [("float32", "NCHW"), ("float16", "NCHW"), ("float16", "NHWC"),
                                           ("float32", "NHWC")])
def test_pointwise_routes_match_float64(rng, dtype, layout):
    # N 8, C 256 -> K 200, 48 x 48: 3.8 GFLOP, past the three-TF32 path's and the 16-bit copies'
    # thresholds, so sm_90 takes the routes above; a bias and relu (fused channels last)
    n, c, k, hw = 8, 256, 200, 48
    x = random_array(rng, (n, hw, hw, c) if layout == "NHWC" else (n, c, hw, hw), dtype)
    w = (random_array(rng, (k, c), dtype).astype(np.float64) / 16).astype(dtype)
    b = random_array(rng, (k,), dtype)
    wt = w.reshape((k, 1, 1, c) if layout == "NHWC" else (k, c, 1, 1))
    got = ra.nn.conv2d(to_device(x), to_device(wt), to_device(b), layout=layout, activation="relu")
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    if layout == "NHWC":
        want = np.einsum("nhwc,kc->nhwk", x64, w64) + b.astype(np.float64)
    else:
        want = np.einsum("nchw,kc->nkhw", x64, w64) + b.astype(np.float64)[:, None, None]
    assert_close(to_host(got), np.maximum(want, 0), dtype, c)
