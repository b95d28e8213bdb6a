"""Host logic of the convalgos algorithms (CPU tests): which problems each takes, the registered
instantiations, tile and split choices, FFT lengths and geometry, the kernels' geometry record,
and the launches a call makes (recorded by launchfake, never run)."""

import numpy as np
import pytest

from launchfake import fake_device  # noqa: F401 (the fixture)
from miopen import conv_reference as ref

from rocarray._core import compile as _compile
from rocarray.miopen import _conv_fft, _conv_implicit_gemm as igemm, _conv_registry, _conv_wgmma
from rocarray.miopen import _conv_winograd as wino


def test_registry_holds_the_four_algorithms():
    names = _conv_registry.algorithms()
    for name in ("implicit_gemm", "winograd_f2x3", "winograd_f4x3", "fft"):
        assert names[name].name == name
        # implicit_gemm's forward fuses bias and activation (its warpgroup kernel's epilogue, else a second pass)
        assert names[name].fuses_epilogue is (name == "implicit_gemm")
    assert names["implicit_gemm"].sources == (igemm.SOURCE, _conv_wgmma.SOURCE)
    assert names["winograd_f4x3"].sources == (wino.SOURCE,)
    assert names["fft"].sources == ()


@pytest.mark.parametrize("direction", ["forward", "backward_data", "backward_weights"])
def test_implicit_gemm_takes_every_direction_and_dtype(direction):
    a = _conv_registry.algorithms()["implicit_gemm"]
    for dtype in ("float16", "float32", "float64"):
        for layout in ("NCHW", "NHWC"):
            assert a.applicable(ref.make_problem(direction, dtype=dtype, layout=layout, input_size=(4, 5, 6),
                                                 filter_size=2, groups=1))
    assert not a.applicable(ref.make_problem(direction, dtype="int32"))


def test_winograd_takes_only_3x3_stride_1_dilation_1_forward_2d():
    for name in ("winograd_f2x3", "winograd_f4x3"):
        a = _conv_registry.algorithms()[name]
        assert a.applicable(ref.make_problem(c=4, k=4, input_size=(7, 9), pad=(1, 0), groups=2, layout="NHWC"))
        for bad in (dict(filter_size=(3, 2)), dict(stride=(1, 2)), dict(dilation=2), dict(input_size=(7,),
                    filter_size=3), dict(direction="backward_data"), dict(dtype="int32")):
            args = dict(input_size=(7, 9), filter_size=3)
            args.update(bad)
            assert not a.applicable(ref.make_problem(**args)), bad


def test_fft_takes_filters_of_more_than_one_tap():
    a = _conv_registry.algorithms()["fft"]
    assert a.applicable(ref.make_problem(input_size=(9,), filter_size=(2,), stride=2, dilation=3))
    assert not a.applicable(ref.make_problem(input_size=(9, 9), filter_size=1))
    assert not a.applicable(ref.make_problem(direction="backward_weights"))


def test_every_launched_name_is_registered():
    registered = set(_compile.registered(igemm.SOURCE))
    assert registered == set(igemm.instantiations())
    assert igemm.kernel_name("float64", False, "large") not in registered  # float64 never takes it
    assert igemm.kernel_name("float16", True, "small") not in registered  # the matrix-unit kernel's problems
    assert igemm.mma_kernel_name("bfloat16") == "ra_miopen_conv_igemm_fwd_mma<ra_bfloat16>" in registered
    assert igemm.backward_kernel_name("float32", True, 1, "small") in registered
    assert igemm.backward_kernel_name("float64", False, 0, "small") == (
        "ra_miopen_conv_igemm_bwd_data<double, false, 64, 64, 8, 4, 4>")
    assert set(_compile.registered(wino.SOURCE)) == set(wino.instantiations())
    assert wino.kernel_name("input", "float16", 4, True) == "ra_miopen_winograd_input<ra_half, 4, true>"


def test_tile_choice():
    p = ref.make_problem
    assert igemm.choose_tile(p(dtype="float16", layout="NHWC", c=3, k=8)) == "mma"
    assert igemm.choose_tile(p(dtype="float16", layout="NCHW", c=3, k=8)) == "narrow"
    assert igemm.choose_tile(p(dtype="float32", c=64, k=64, n=2, input_size=(8, 8))) == "small"
    assert igemm.choose_tile(p(dtype="float32", c=64, k=256, n=64, input_size=(56, 56), pad=1)) == "large"
    assert igemm.choose_tile(p(dtype="float64", c=64, k=256, n=64, input_size=(56, 56), pad=1)) == "small"


def test_backward_weights_splits_fill_the_device_within_limits():
    p = ref.make_problem("backward_weights", n=64, c=8, k=8, input_size=(56, 56), pad=1)
    # 1 x 2 tiles of 64 x 64 (8 channels out, 8 x 9 columns): 132 splits give 2 blocks per multiprocessor
    assert igemm.splits_for(p, "small", 132) == 132
    short = ref.make_problem("backward_weights", n=1, c=8, k=8, input_size=(16, 16), pad=1)
    assert igemm.splits_for(short, "small", 132) == 1  # 256 reduction steps: at least 32 steps of 8 each
    big = ref.make_problem("backward_weights", n=1, c=512, k=512, input_size=(7, 7), pad=1)
    assert igemm.splits_for(big, "large", 132) == 1  # many tiles, a short reduction
    depthwise = ref.make_problem("backward_weights", n=64, c=60000, k=60000, groups=60000, input_size=(56, 56))
    assert depthwise.groups * igemm.splits_for(depthwise, "small", 132) <= 65535


def test_geometry_record_pads_to_three_axes():
    p = ref.make_problem(n=2, c=6, k=4, input_size=(11,), filter_size=(3,), stride=2, pad=1, dilation=2, groups=2)
    g = igemm.geometry(p)
    assert g.shape == (1,) and g.nbytes == 8 * len(igemm.GEOMETRY_FIELDS)
    values = dict(zip(igemm.GEOMETRY_FIELDS, g.view(np.int64)))
    assert (values["n"], values["c"], values["k"], values["cg"], values["kg"]) == (2, 6, 4, 3, 2)
    assert (values["in_d"], values["in_h"], values["in_w"]) == (1, 1, 11)
    assert (values["f_d"], values["f_h"], values["f_w"]) == (1, 1, 3)
    assert (values["out_w"], values["stride_w"], values["pad_w"], values["dil_w"]) == (p.output_size[0], 2, 1, 2)
    assert (values["stride_d"], values["pad_d"], values["dil_d"]) == (1, 0, 1)


def test_fft_lengths_are_7_smooth_and_cover_the_span():
    assert [_conv_fft.fast_length(n) for n in (1, 11, 13, 58, 97, 121)] == [1, 12, 14, 60, 98, 125]
    p = ref.make_problem(input_size=(13, 20), filter_size=(7, 3), stride=(2, 1), dilation=(2, 1), pad=(4, 0),
                         pad_after=(0, 0))
    geo = _conv_fft.Geometry(p)
    for axis, (o, s, f, d) in enumerate(zip(p.output_size, p.stride, p.filter_size, p.dilation)):
        span = (o - 1) * s + (f - 1) * d + 1
        assert geo.lengths[axis] >= span
        inner, source = geo.inner[axis], geo.source[axis]
        assert inner.stop - inner.start == source.stop - source.start and inner.stop <= span


def test_forward_launches_one_kernel_per_call_from_a_cached_plan(fake_device):
    p = ref.make_problem(n=2, c=16, k=24, input_size=(9, 9), pad=1, dtype="float16", layout="NHWC")
    x, w, y = (fake_device.array(s, "float16") for s in (p.x_shape(), p.w_shape(), p.y_shape()))
    for _ in range(2):
        igemm.forward(p, x, w, y)
    names = fake_device.names()
    assert names == [igemm.mma_kernel_name("float16")] * 2
    launch = fake_device.launches[-1]
    assert launch.grid == (2, 1, 1) and launch.block == (256, 1, 1)
    assert int(launch.args[-1]) == 1  # 8-channel groups, aligned: 16-byte loads


def test_winograd_launch_sequence(fake_device, monkeypatch):
    calls = []
    monkeypatch.setattr(wino.rocblas, "gemm_strided_batched", lambda *a: calls.append(a))
    p = ref.make_problem(n=1, c=6, k=4, input_size=(10, 7), pad=1, groups=2)
    x, w, y = (fake_device.array(s, "float32") for s in (p.x_shape(), p.w_shape(), p.y_shape()))
    wino.forward(p, x, w, y, 4)
    assert [n.split("<")[0] for n in fake_device.names()] == ["ra_miopen_winograd_filter", "ra_miopen_winograd_input",
                                                            "ra_miopen_winograd_output"]
    (ta, tb, m, n, k, *_rest), = calls
    tiles = 1 * 3 * 2  # ceil(10 / 4) x ceil(7 / 4)
    assert (ta, tb, m, n, k) == ("N", "N", tiles, 2, 3) and calls[0][-1] == 36 * 2


def test_transform_algorithms_stop_at_their_scratch_limit():
    small = ref.make_problem(n=64, c=256, k=256, input_size=(56, 56), filter_size=3, pad=1, dtype="float16")
    huge = ref.make_problem(n=256, c=512, k=512, input_size=(112, 112), filter_size=3, pad=1, dtype="float16")
    for name in ("winograd_f2x3", "winograd_f4x3", "fft"):
        a = _conv_registry.algorithms()[name]
        assert a.applicable(small) and not a.applicable(huge), name
    # F(4x4): 36 x (K CG + (C + K) tiles) float32 elements, 12544 tiles
    assert wino.scratch_bytes(small, 4) == 36 * (256 * 256 + 512 * 12544) * 4
    # FFT: lengths 60 x 60, 60 x 31 frequencies, complex64, twice
    assert _conv_fft.scratch_bytes(small) == 2 * (64 * 256 + 256 * 256 + 64 * 256) * 60 * 31 * 8
