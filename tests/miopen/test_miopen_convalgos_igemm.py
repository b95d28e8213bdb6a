"""The implicit-GEMM convolution on the GPU, every direction, dtype and layout, against the
float64 reference (tests/miopen/conv_reference.py): odd sizes, batch 1, stride 2, dilation 2,
groups, 1 x 1 and 7 x 7 filters, 1-D and 3-D; every tile shape and the matrix-unit kernel."""

import pytest
from convalgos_gpu import DTYPES, problem, run_checked

from rocarray.miopen import _conv_implicit_gemm as igemm

SHAPES = [
    dict(n=1, c=3, k=5, input_size=(17, 13), filter_size=3, pad=1),
    dict(n=2, c=8, k=12, input_size=(31, 29), filter_size=7, stride=2, dilation=2, pad=3, groups=2),
    dict(n=3, c=64, k=130, input_size=(14, 11), filter_size=1),
    dict(n=2, c=5, k=7, input_size=(37,), filter_size=5, stride=2, pad=2),
    dict(n=1, c=4, k=6, input_size=(6, 7, 5), filter_size=3, pad=(1, 0, 1), dilation=(1, 2, 1)),
    dict(n=2, c=48, k=40, input_size=(9, 10), filter_size=3, pad=1, groups=8),
]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_forward(rng, shape, dtype, layout):
    run_checked("implicit_gemm", problem(dtype=dtype, layout=layout, **SHAPES[shape]), rng)


@pytest.mark.gpu
@pytest.mark.parametrize("direction", ["backward_data", "backward_weights"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [1, 2, 4])
def test_backward(rng, shape, dtype, layout, direction):
    run_checked("implicit_gemm", problem(direction, dtype=dtype, layout=layout, **SHAPES[shape]), rng)


@pytest.mark.gpu
@pytest.mark.parametrize("tile", ["large", "small", "narrow"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_every_tile(rng, tile, layout):
    p = problem(dtype="float32", layout=layout, n=2, c=20, k=150, input_size=(23, 19), filter_size=3, pad=1)
    run_checked("implicit_gemm", p, rng, run=lambda p, x, w, y: igemm.forward(p, x, w, y, tile=tile))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [d for d in DTYPES if d in igemm.MMA_DTYPES])
@pytest.mark.parametrize("c", [64, 24, 3])
def test_matrix_unit_kernel(rng, dtype, c):
    # 16-byte channel loads (c = 64, 24 per group of 8) and element gathers (c = 3); pixels and
    # output channels past one 128 x 128 tile; a partial last reduction step
    p = problem(dtype=dtype, layout="NHWC", n=2, c=c, k=136, input_size=(15, 17), filter_size=3, pad=1,
                groups=1 if c == 3 else 2)
    assert igemm.choose_tile(p) == "mma"
    run_checked("implicit_gemm", p, rng)


@pytest.mark.gpu
def test_backward_weights_split_reduction(rng):
    # a long reduction (N * output pixels) over a small weight tensor: split across blocks
    p = problem("backward_weights", dtype="float32", layout="NHWC", n=16, c=8, k=8, input_size=(40, 40),
                filter_size=3, pad=1)
    assert igemm.splits_for(p, igemm.backward_tile(p, 1), 132) > 1
    run_checked("implicit_gemm", p, rng)
