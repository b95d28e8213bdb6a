"""The sm_90a warpgroup convolution (``rocarray/miopen/_conv_wgmma.py``) on the CPU: which problems
it takes, its rectangles, tensor-map geometry and tile walk, a NumPy model of its copies and
products checked against the float64 reference, and what ``ra.nn.conv2d`` launches on launchfake's
recording sm_90 device (tensor maps are stand-ins). The kernel itself (inline PTX: wgmma, TMA)
runs only on a GPU: ``tests/nn/test_nn_conv_wgmma_gpu.py``."""

import dataclasses
import itertools
import re

import numpy as np
import pytest

import launchfake
from miopen import conv_reference as ref

import rocarray as ra
from rocarray._core import backend, compile as _compile, tensor_maps, tuning
from rocarray.miopen import _conv_wgmma as wg
from rocarray.miopen._conv_direct import ACTIVATIONS, LEAKY_RELU_SLOPE

fake_device = launchfake.fake_device  # the fixture
BENCH = dict(n=64, c=256, k=256, input_size=(56, 56), filter_size=3, pad=1, dtype="float16", layout="NHWC")


def _problem(**kw):
    args = dict(BENCH)
    args.update(kw)
    return ref.make_problem("forward", **args)


def _fields(problem):
    return dict(zip(wg.SHAPE_FIELDS, (int(v) for v in wg.shape(problem).view(np.int32))))


# --------------------------------------------------------------------------------------------
# what it takes
# --------------------------------------------------------------------------------------------

def test_the_bench_problem_and_its_neighbours_apply():
    assert wg.shape_applies(_problem())
    for kw in (dict(n=1), dict(c=8), dict(c=200), dict(k=40), dict(k=72), dict(filter_size=1,
               pad=0), dict(filter_size=5, pad=2), dict(dilation=2, pad=2), dict(input_size=(13, 17)),
               dict(pad=(0, 2)), dict(pad=1, pad_after=0)):
        assert wg.shape_applies(_problem(**kw)), kw


@pytest.mark.parametrize("kw", [dict(stride=2), dict(c=12), dict(c=4), dict(layout="NCHW"), dict(dtype="float32"),
                                dict(groups=2), dict(input_size=(56,), filter_size=3),
                                dict(input_size=(6, 7, 8), filter_size=3)], ids=str)
def test_other_problems_keep_the_older_kernels(kw):
    assert not wg.shape_applies(_problem(**kw))


def test_bfloat16_applies():
    pytest.importorskip("ml_dtypes")  # NumPy's bfloat16
    assert wg.shape_applies(_problem(dtype="bfloat16"))


def test_backward_directions_are_not_taken():
    for direction in ("backward_data", "backward_weights"):
        assert not wg.shape_applies(ref.make_problem(direction, **BENCH))


# --------------------------------------------------------------------------------------------
# rectangles, tiles and the kernel's shape record
# --------------------------------------------------------------------------------------------

def _covered(p, q, bh, bw):
    return -(-p // bh) * bh * -(-q // bw) * bw


@pytest.mark.parametrize("p,q", [(56, 56), (13, 17), (1, 1), (1, 100), (100, 1), (28, 28), (7, 7), (30, 9)])
def test_rectangle_is_64_pixels_with_the_least_waste(p, q):
    bh, bw = wg.rectangle(p, q)
    assert bh * bw == wg.RECT and bw & (bw - 1) == 0
    best = min(_covered(p, q, wg.RECT >> e, 1 << e) for e in range(7))
    assert _covered(p, q, bh, bw) == best


def test_the_bench_image_is_cut_into_8x8_rectangles_without_waste():
    assert wg.rectangle(56, 56) == (8, 8)
    f = _fields(_problem())
    assert (f["bh"], f["bw_log2"], f["rects_p"], f["rects_q"]) == (8, 3, 7, 7)
    assert f["tiles_m"] == 64 * 49 // 2 and f["tiles_k"] == 1 and f["taps"] == 9 and f["ctiles"] == 4
    assert (f["n"], f["p"], f["q"], f["k"], f["s"]) == (64, 56, 56, 256, 3)
    assert (f["pad_h"], f["pad_w"], f["dil_h"], f["dil_w"]) == (1, 1, 1, 1)


def test_shape_record_of_an_odd_problem():
    problem = _problem(n=3, c=200, k=72, input_size=(13, 17), filter_size=(3, 5), pad=(1, 2), dilation=(2, 1))
    f = _fields(problem)
    bh, bw = wg.rectangle(*problem.output_size)
    assert (f["p"], f["q"]) == problem.output_size == (11, 17)
    assert f["bh"] == bh and 1 << f["bw_log2"] == bw
    rects = 3 * -(-11 // bh) * -(-17 // bw)
    assert f["tiles_m"] == -(-rects // 2) and f["tiles_k"] == 1 and wg.tile_width(72) == 128
    assert (f["taps"], f["s"], f["ctiles"]) == (15, 5, 4)
    assert (f["pad_h"], f["pad_w"], f["dil_h"], f["dil_w"]) == (1, 2, 2, 1)
    assert wg.shape(problem).nbytes == 4 * len(wg.SHAPE_FIELDS)


def test_shape_fields_are_the_kernels_struct_in_order():
    text = _compile.read_text(wg.SOURCE)
    body = re.search(r"struct ra_conv_wg_shape \{(.*?)\};", text, re.S).group(1)
    body = re.sub(r"//[^\n]*", "", body)
    fields = [name for decl in body.split(";") if decl.strip()
              for name in re.match(r"\s*int\s+(.*)", decl, re.S).group(1).replace(" ", "").replace("\n", "").split(",")]
    assert tuple(fields) == wg.SHAPE_FIELDS


def test_tile_width_and_ring_depth_fit_the_shared_memory():
    assert [wg.tile_width(k) for k in (8, 128, 129, 256, 1000)] == [128, 128, 256, 256, 256]
    limit = launchfake.SM90_SHARED
    for staging in (False, True):
        assert wg.stages_for(256, limit, staging) == 4 and wg.stages_for(128, limit, staging) == 6
        for tile_n in wg.TILE_WIDTHS:
            assert wg.shared_bytes(tile_n, wg.stages_for(tile_n, limit, staging), staging) <= limit
        assert wg.stages_for(256, 100_000, staging) is None
    assert wg.shared_bytes(256, 4, True) - wg.shared_bytes(256, 4) == 2 * 64 * 256


def test_the_epilogue_is_staged_where_output_channels_are_multiples_of_8(monkeypatch):
    assert [_fields(_problem(k=k))["staged"] for k in (256, 40, 8, 42, 7)] == [1, 1, 1, 0, 0]
    monkeypatch.setattr(wg, "STAGED_EPILOGUE", False)
    assert _fields(_problem())["staged"] == 0


@pytest.mark.parametrize("tile_n", wg.TILE_WIDTHS)
def test_staging_layout_round_trips_without_bank_conflicts(tile_n):
    # The kernel's staged epilogue (ra_conv_wg_store_staged), one half tile of one warpgroup:
    # register pair (j, h) of warp w, lane l holds row 16 w + l / 4 + 8 h, columns 8 j + 2 (l % 4)
    # and + 1, stored as a 4-byte word at row * ROW + ((j ^ (row % 8)) * 16) + 4 (l % 4); thread
    # t of the warpgroup then reads chunk id = it * 128 + t (row id / CHUNKS, chunk c) from
    # row * ROW + (c ^ (row % 8)) * 16 and stores it as columns 8 c .. 8 c + 7 of the row.
    chunks = tile_n // 16
    row_bytes = 16 * chunks
    words = {}
    for w, j, h in itertools.product(range(4), range(chunks), range(2)):
        banks = []
        for lane in range(32):
            row = 16 * w + lane // 4 + 8 * h
            address = row * row_bytes + ((j ^ (row % 8)) * 16) + 4 * (lane % 4)
            assert address not in words
            words[address] = (row, 8 * j + 2 * (lane % 4))  # first column of the pair
            banks.append(address // 4 % 32)
        assert len(set(banks)) == 32  # one warp store: 32 distinct banks
    assert len(words) == 64 * row_bytes // 4 and max(words) < 64 * row_bytes
    for it in range(64 * chunks // 128):
        for warp in range(4):
            ids = [it * 128 + 32 * warp + lane for lane in range(32)]
            for quarter in range(4):  # 16-byte reads: eight lanes a shared-memory wavefront
                banks = set()
                for i in ids[8 * quarter: 8 * quarter + 8]:
                    row, c = divmod(i, chunks)
                    base = row * row_bytes + (c ^ (row % 8)) * 16
                    assert [words[base + 4 * q] for q in range(4)] == [(row, 8 * c + 2 * q) for q in range(4)]
                    banks.update((base // 4 + q) % 32 for q in range(4))
                assert len(banks) == 32


def test_instantiations_are_two_dtypes_by_two_widths():
    names = wg.instantiations()
    assert len(names) == 4 and set(names) <= set(_compile.registered(wg.SOURCE))
    assert wg.kernel_name("float16", 256) == "ra_miopen_conv_wgmma_fwd<ra_half, 256>"


# --------------------------------------------------------------------------------------------
# tensor maps
# --------------------------------------------------------------------------------------------

def test_tensor_map_geometry_of_the_bench_problem():
    problem = _problem()
    dims, strides, box = wg.input_map_geometry(problem, (8, 8))
    assert dims == (256, 56, 56, 64) and strides == (512, 512 * 56, 512 * 56 * 56) and box == (64, 8, 8, 1)
    dims, strides, box = wg.weight_map_geometry(problem, 256)
    assert dims == (256, 9, 256) and strides == (512, 512 * 9) and box == (64, 1, 256)


@pytest.mark.parametrize("c", [8, 24, 200])
def test_tensor_map_strides_are_16_byte_multiples_and_boxes_128_byte_rows(c):
    problem = _problem(c=c, k=40, input_size=(13, 17))
    for dims, strides, box in (wg.input_map_geometry(problem, wg.rectangle(*problem.output_size)),
                               wg.weight_map_geometry(problem, 128)):
        assert all(s % 16 == 0 and s > 0 for s in strides)
        assert 2 * box[0] == 128 and all(1 <= b <= 256 for b in box)
        assert dims[0] == c
    box = wg.input_map_geometry(problem, wg.rectangle(*problem.output_size))[2]
    assert box[1] * box[2] == wg.RECT  # one warpgroup's 64 rows


def test_a_driver_without_tensor_maps_is_a_tensor_map_error(monkeypatch):
    def missing():
        raise OSError("libcuda.so.1: cannot open shared object file")
    monkeypatch.setattr(tensor_maps, "_encoder", missing)
    with pytest.raises(tensor_maps.TensorMapError):
        tensor_maps.encode_tiled(("test", 1), 1 << 20, 2, (64, 8), (128,), (64, 8))


# --------------------------------------------------------------------------------------------
# a NumPy model of the kernel: its tile walk, TMA boxes (zero outside the tensor), products, stores
# --------------------------------------------------------------------------------------------

def _box(tensor, dims, start, box):
    """TMA tiled-mode copy: the box of ``tensor`` (NumPy, dimensions reversed from ``dims``) at
    ``start`` (innermost first), zero outside the tensor."""
    out = np.zeros(box[::-1], tensor.dtype)
    for idx in itertools.product(*(range(b) for b in box[::-1])):
        coord = tuple(s + i for s, i in zip(start[::-1], idx))
        if all(0 <= c < d for c, d in zip(coord, dims[::-1])):
            out[idx] = tensor[coord]
    return out


def _rect(f, rect):
    per_image = f["rects_p"] * f["rects_q"]
    n, in_image = divmod(rect, per_image)
    pt, qt = divmod(in_image, f["rects_q"])
    return n, pt * f["bh"], qt << f["bw_log2"]


def _model(problem, x, w, bias, act):
    """y as the kernel computes it, following its index arithmetic with the host's geometry."""
    f = _fields(problem)
    tile_n = wg.tile_width(problem.k)
    rect = (f["bh"], 1 << f["bw_log2"])
    x_dims, _, x_box = wg.input_map_geometry(problem, rect)
    w_dims, _, w_box = wg.weight_map_geometry(problem, tile_n)
    w3 = w.reshape(problem.k, f["taps"], problem.c)  # (K, RS, C): dims (C, RS, K) reversed
    y = np.full(problem.y_shape(), np.nan)
    written = np.zeros(problem.y_shape(), int)
    for t in range(f["tiles_m"] * f["tiles_k"]):
        m, kt = divmod(t, f["tiles_k"])
        k0 = kt * tile_n
        rects = [_rect(f, 2 * m + g) for g in range(2)]
        acc = np.zeros((wg.TILE_M, tile_n))
        for tap in range(f["taps"]):
            r, s = divmod(tap, f["s"])
            dh, dw = r * f["dil_h"] - f["pad_h"], s * f["dil_w"] - f["pad_w"]
            for ct in range(f["ctiles"]):
                c0 = wg.BK * ct
                a = np.concatenate([_box(x, x_dims, (c0, q0 + dw, p0 + dh, n), x_box).reshape(wg.RECT, wg.BK)
                                    for n, p0, q0 in rects])
                b = _box(w3, w_dims, (c0, tap, k0), w_box).reshape(tile_n, wg.BK)
                acc += a @ b.T
        for g, (n, p0, q0) in enumerate(rects):
            for row in range(wg.RECT):
                p, q = p0 + (row >> f["bw_log2"]), q0 + (row & ((1 << f["bw_log2"]) - 1))
                if n >= f["n"] or p >= f["p"] or q >= f["q"]:
                    continue
                for col in range(k0, min(k0 + tile_n, f["k"])):
                    v = acc[g * wg.RECT + row, col - k0] + (bias[col] if bias is not None else 0.0)
                    if act == "relu":
                        v = max(v, 0.0)
                    elif act == "leaky_relu":
                        v = v if v >= 0 else v * LEAKY_RELU_SLOPE
                    y[n, p, q, col] = v
                    written[n, p, q, col] += 1
    return y, written


@pytest.mark.parametrize("kw", [
    dict(n=3, c=24, k=40, input_size=(13, 17), filter_size=3, pad=1),
    dict(n=1, c=8, k=72, input_size=(9, 6), filter_size=3, pad=2, dilation=2),
    dict(n=2, c=16, k=130, input_size=(7, 5), filter_size=(5, 3), pad=(2, 0)),
    dict(n=1, c=72, k=8, input_size=(4, 11), filter_size=1, pad=0),
    dict(n=2, c=8, k=16, input_size=(6, 6), filter_size=3, pad=1, pad_after=0),
], ids=["13x17", "dilation2", "5x3_k130", "1x1_c72", "asymmetric_pad"])
@pytest.mark.parametrize("act", [None, "relu", "leaky_relu"])
def test_model_of_the_kernel_matches_the_reference(kw, act):
    rng = np.random.default_rng(sum(map(ord, str(kw) + str(act))))
    problem = _problem(dtype="float64", **kw)
    x, w, _ = ref.random_operands(rng, problem)
    bias = rng.standard_normal(problem.k)
    y, written = _model(problem, x, w, bias if act else None, act)
    assert (written == 1).all()  # every output element stored exactly once
    want = ref.forward(problem, x, w) + (bias if act else 0.0)
    if act == "relu":
        want = np.maximum(want, 0.0)
    elif act == "leaky_relu":
        want = np.where(want >= 0, want, want * LEAKY_RELU_SLOPE)
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------------------------
# routing on the recording sm_90 device
# --------------------------------------------------------------------------------------------

@pytest.fixture
def sm90(fake_device, monkeypatch, tmp_path):
    """The fake device with sm_90's opt-in shared memory, stand-in tensor maps recorded in
    ``device.maps``, an empty find-db and the fast find mode."""
    launchfake.with_fresh_search(fake_device, monkeypatch, tmp_path)

    def stand_in(kind, address, geometry):
        fake_device.maps.append((kind, address) + tuple(geometry))
        return np.zeros(1, tensor_maps.TENSOR_MAP)
    monkeypatch.setattr(wg, "_map", stand_in)
    yield fake_device
    tuning.clear_cache()


def _tensors(dev, problem, bias=False):
    dtype = problem.dtype
    return (dev.array(problem.x_shape(), dtype), dev.array(problem.w_shape(), dtype),
            dev.array((problem.k,), dtype) if bias else None)


def _conv(problem, x, w, b=None, **kw):
    return ra.nn.conv2d(x, w, b, stride=problem.stride, padding=problem.pad, dilation=problem.dilation,
                        groups=problem.groups, layout=problem.layout, **kw)


@pytest.mark.parametrize("dtype,ctype", [("float16", "ra_half"), ("bfloat16", "ra_bfloat16")])
@pytest.mark.parametrize("bias", [False, True], ids=["plain", "bias_gelu"])
def test_bench_conv_is_one_warpgroup_launch_with_the_epilogue_fused(sm90, dtype, ctype, bias):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    dev = sm90
    problem = _problem(dtype=dtype)
    x, w, b = _tensors(dev, problem, bias)
    for _ in range(2):  # the first call and a warm one launch the same
        dev.launches.clear()
        dev.maps.clear()
        y = _conv(problem, x, w, b, activation="gelu" if bias else None)
        assert dev.names() == [f"ra_miopen_conv_wgmma_fwd<{ctype}, 256>"]
        launch = dev.launches[0]
        assert launch.grid == (132, 1, 1) and launch.block == (wg.BLOCK, 1, 1)
        assert launch.shared == wg.shared_bytes(256, 4, True) <= launchfake.SM90_SHARED
        args = launch.args
        assert args[2] == y.data.ptr and args[3] == (b.data.ptr if bias else 0)
        assert bytes(args[4]) == wg.shape(problem).tobytes()
        assert (int(args[5]), int(args[6])) == (4, ACTIVATIONS["gelu" if bias else None])
        assert float(args[7]) == pytest.approx(LEAKY_RELU_SLOPE)
        assert dev.maps == [("x", x.data.ptr) + wg.input_map_geometry(problem, (8, 8)),
                            ("w", w.data.ptr) + wg.weight_map_geometry(problem, 256)]
        assert y.shape == (64, 56, 56, 256)


def test_forced_implicit_gemm_takes_it_and_k40_gets_the_128_wide_tile(sm90):
    dev = sm90
    problem = _problem(n=2, c=24, k=40, input_size=(13, 17))
    x, w, b = _tensors(dev, problem, True)
    _conv(problem, x, w, b, activation="leaky_relu", algo="implicit_gemm")
    assert dev.names() == ["ra_miopen_conv_wgmma_fwd<ra_half, 128>"]
    launch = dev.launches[0]
    f = _fields(problem)
    assert launch.grid == (min(132, f["tiles_m"]), 1, 1) and launch.shared == wg.shared_bytes(128, 6, True)
    assert int(launch.args[6]) == ACTIVATIONS["leaky_relu"]


@pytest.mark.parametrize("kw", [dict(stride=2), dict(c=12), dict(groups=2, c=16, k=16)], ids=str)
def test_problems_it_does_not_take_run_the_mma_kernel_and_the_epilogue_pass(sm90, kw):
    dev = sm90
    problem = _problem(n=2, c=kw.get("c", 16), k=kw.get("k", 32), input_size=(9, 9), stride=kw.get("stride", 1),
                       groups=kw.get("groups", 1))
    x, w, b = _tensors(dev, problem, True)
    _conv(problem, x, w, b, activation="relu", algo="implicit_gemm")
    assert dev.names() == ["ra_miopen_conv_igemm_fwd_mma<ra_half>", "ra_miopen_conv_epilogue<ra_half>"]


def test_a_refused_tensor_map_falls_back_to_the_mma_kernel(sm90, monkeypatch):
    dev = sm90

    def refused(kind, address, geometry):
        raise tensor_maps.TensorMapError("refused")
    monkeypatch.setattr(wg, "_map", refused)
    problem = _problem(n=1, c=16, k=32, input_size=(9, 9))
    x, w, _ = _tensors(dev, problem)
    _conv(problem, x, w, algo="implicit_gemm")
    assert dev.names() == ["ra_miopen_conv_igemm_fwd_mma<ra_half>"]


def test_other_compute_capabilities_run_the_mma_kernel(sm90, monkeypatch):
    dev = sm90
    info = dataclasses.replace(launchfake.PROFILE, arch="sm_80", compute_capability="8.0")
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: info)
    problem = _problem(n=1, c=16, k=32, input_size=(9, 9))
    x, w, _ = _tensors(dev, problem)
    _conv(problem, x, w, algo="implicit_gemm")
    assert dev.names() == ["ra_miopen_conv_igemm_fwd_mma<ra_half>"]
