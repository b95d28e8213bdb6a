"""The convalgos algorithms against torch on the same GPU (float64, where torch's convolution
and its gradients are exact references of their own): forward by every algorithm, backward by
implicit GEMM; NCHW and NHWC (torch gets channels-first copies)."""

import numpy as np
import pytest
from convalgos_gpu import problem, run_checked

CASES = [
    ("implicit_gemm", dict(n=2, c=6, k=10, input_size=(19, 14), filter_size=3, stride=2, pad=1, dilation=2, groups=2)),
    ("winograd_f2x3", dict(n=1, c=7, k=5, input_size=(15, 16), filter_size=3, pad=1)),
    ("winograd_f4x3", dict(n=2, c=4, k=9, input_size=(13, 11), filter_size=3, pad=1)),
    ("fft", dict(n=2, c=3, k=4, input_size=(21, 18), filter_size=7, pad=3)),
]


def _torch_conv(torch, p, x, w):
    fn = getattr(torch.nn.functional, f"conv{p.nd}d")
    return fn(x, w, stride=p.stride, padding=p.pad, dilation=p.dilation, groups=p.groups)


def _first(a, p):
    return np.moveaxis(a, -1, 1) if p.channels_last else a


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("name,args", CASES)
def test_forward_matches_torch(rng, name, args, layout):
    torch = pytest.importorskip("torch")
    p = problem(dtype="float64", layout=layout, **args)
    got, (x, w, _) = run_checked(name, p, rng)
    t = [torch.tensor(np.ascontiguousarray(_first(a, p)), device="cuda") for a in (x, w)]
    want = _torch_conv(torch, p, *t).cpu().numpy()
    np.testing.assert_allclose(_first(got, p), want, rtol=1e-10, atol=1e-10 * np.abs(want).max())


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("direction", ["backward_data", "backward_weights"])
def test_backward_matches_torch(rng, direction, layout):
    torch = pytest.importorskip("torch")
    p = problem(direction, dtype="float64", layout=layout, **CASES[0][1])
    got, (x, w, dy) = run_checked("implicit_gemm", p, rng)
    if direction == "backward_data":
        w_t = torch.tensor(np.ascontiguousarray(_first(w, p)), device="cuda")
        x_t = torch.zeros(p.n, p.c, *p.input_size, dtype=torch.float64, device="cuda", requires_grad=True)
        leaf = x_t
        out = _torch_conv(torch, p, x_t, w_t)
    else:
        x_t = torch.tensor(np.ascontiguousarray(_first(x, p)), device="cuda")
        leaf = torch.zeros(p.k, p.c_per_group, *p.filter_size, dtype=torch.float64, device="cuda", requires_grad=True)
        out = _torch_conv(torch, p, x_t, leaf)
    out.backward(torch.tensor(np.ascontiguousarray(_first(dy, p)), device="cuda"))
    want = leaf.grad.cpu().numpy()
    np.testing.assert_allclose(_first(got, p), want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
