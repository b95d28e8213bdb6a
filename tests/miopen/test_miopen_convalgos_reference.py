"""The float64 convolution reference (tests/miopen/conv_reference.py) against the definition:
forward against a naive loop over output elements; the backward directions through the adjoint
identities <conv(x, w), dy> = <x, dconv_x(dy, w)> = <w, dconv_w(x, dy)>. CPU tests."""

import numpy as np
import pytest

from miopen import conv_reference as ref

CASES = [
    # input_size, filter_size, stride, pad, dilation, groups, c, k, pad_after
    ((7,), (3,), 1, 1, 1, 1, 2, 3, None),
    ((9,), (4,), 2, 0, 2, 2, 4, 6, None),
    ((5, 6), (3, 3), 1, 1, 1, 1, 3, 2, None),
    ((7, 5), (2, 3), (2, 1), (0, 2), (1, 2), 3, 3, 6, None),
    ((6, 6), (3, 3), 2, 1, 1, 1, 2, 2, 0),  # torch's "same"-style asymmetric padding
    ((4, 5, 3), (2, 3, 1), 1, (1, 0, 0), 1, 2, 4, 2, None),
    ((5, 4, 4), (3, 2, 2), 2, 1, (1, 2, 1), 1, 1, 3, None),
]


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", CASES)
def test_reference_matches_definition(case, layout, rng):
    size, fsize, stride, pad, dil, groups, c, k, after = case
    p = ref.make_problem(n=2, c=c, k=k, input_size=size, filter_size=fsize, stride=stride, pad=pad,
                         dilation=dil, groups=groups, layout=layout, pad_after=after)
    assert all(o > 0 for o in p.output_size)
    x, w, dy = ref.random_operands(rng, p)
    y = ref.forward(p, x, w)
    assert y.shape == p.y_shape()
    np.testing.assert_allclose(y, ref.naive_forward(p, x, w), rtol=1e-12, atol=1e-12)
    dx = ref.backward_data(p, dy, w)
    dw = ref.backward_weights(p, x, dy)
    assert dx.shape == p.x_shape() and dw.shape == p.w_shape()
    inner = np.vdot(y, dy)
    np.testing.assert_allclose(np.vdot(x, dx), inner, rtol=1e-12)
    np.testing.assert_allclose(np.vdot(w, dw), inner, rtol=1e-12)


def test_layouts_agree(rng):
    p = ref.make_problem(n=2, c=4, k=6, input_size=(5, 6), filter_size=(3, 2), groups=2, pad=1)
    q = ref.make_problem(n=2, c=4, k=6, input_size=(5, 6), filter_size=(3, 2), groups=2, pad=1, layout="NHWC")
    x, w, _ = ref.random_operands(rng, p)
    y = ref.forward(p, x, w)
    y_last = ref.forward(q, np.moveaxis(x, 1, -1), np.moveaxis(w, 1, -1))
    np.testing.assert_allclose(np.moveaxis(y_last, -1, 1), y, rtol=1e-12, atol=1e-12)


def test_known_values():
    # one channel, 1-D: y[o] = sum_r x[o + r] w[r] (cross-correlation, not flipped)
    p = ref.make_problem(input_size=(4,), filter_size=(2,))
    y = ref.forward(p, np.array([[[1.0, 2.0, 3.0, 4.0]]]), np.array([[[10.0, 1.0]]]))
    np.testing.assert_array_equal(y, [[[12.0, 23.0, 34.0]]])
