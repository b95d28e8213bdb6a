"""The Winograd F(2x2, 3x3), F(4x4, 3x3) and FFT convolutions on the GPU, every dtype and layout,
against the float64 reference (tests/miopen/conv_reference.py): odd sizes, batch 1, padding on
one side only, groups; for FFT also stride 2, dilation 2, 7 x 7 filters, 1-D and 3-D."""

import pytest
from convalgos_gpu import DTYPES, problem, run_checked

WINOGRAD_SHAPES = [
    dict(n=1, c=3, k=5, input_size=(17, 13), pad=1),
    dict(n=2, c=16, k=24, input_size=(12, 9), pad=(0, 2), pad_after=(1, 0), groups=4),
    dict(n=3, c=40, k=33, input_size=(5, 7), pad=1),
]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", range(len(WINOGRAD_SHAPES)))
@pytest.mark.parametrize("name,slack", [("winograd_f2x3", 4), ("winograd_f4x3", 32)])
def test_winograd(rng, name, slack, shape, dtype, layout):
    p = problem(dtype=dtype, layout=layout, filter_size=3, **WINOGRAD_SHAPES[shape])
    run_checked(name, p, rng, slack=slack)


FFT_SHAPES = [
    dict(n=1, c=3, k=4, input_size=(20, 17), filter_size=7, pad=3),
    dict(n=2, c=8, k=6, input_size=(23, 24), filter_size=(5, 4), stride=2, dilation=2, pad=2, groups=2),
    dict(n=2, c=5, k=3, input_size=(61,), filter_size=11, pad=5),
    dict(n=1, c=2, k=3, input_size=(9, 8, 10), filter_size=(3, 5, 3), pad=(1, 2, 0)),
]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", range(len(FFT_SHAPES)))
def test_fft(rng, shape, dtype, layout):
    run_checked("fft", problem(dtype=dtype, layout=layout, **FFT_SHAPES[shape]), rng, slack=16)
