"""Networks built from ``rocarray.nn`` calls match the same networks in torch (GPU, torch needed):
a ResNet bottleneck block in both layouts, a small ResNet-50 and a pre-norm transformer block."""

import numpy as np
import pytest

from rocarray._checks import miopen_models as models

pytestmark = pytest.mark.gpu


def _bottleneck_rocarray(ra, block, x, layout):
    """One bottleneck with a strided downsample, batch norms folded, in ``layout``."""
    nn = ra.nn
    s = block["stride"]
    out = nn.conv2d(x, *block["conv1"], layout=layout, activation="relu")
    out = nn.conv2d(out, *block["conv2"], stride=s, padding=1, layout=layout, activation="relu")
    out = nn.conv2d(out, *block["conv3"], layout=layout)
    return nn.relu(out + nn.conv2d(x, *block["down"], stride=s, layout=layout))


def _fold(ra, cp, conv, layout, dtype):
    bn = conv["bn"]
    w = conv["w"] if layout == "NCHW" else conv["w"].transpose(0, 2, 3, 1)
    f32 = lambda a: cp.asarray(a, np.float32)  # noqa: E731
    w, b = ra.nn.fold_batchnorm(f32(w), None, f32(bn["mean"]), f32(bn["var"]), f32(bn["weight"]), f32(bn["bias"]),
                                models.BN_EPS, layout=layout)
    return w.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_resnet_bottleneck_block_matches_torch(layout, dtype, rng):
    torch = pytest.importorskip("torch")
    import cupy as cp

    import rocarray as ra

    params = models.resnet50_weights(rng, classes=10, width_scale=4)
    block = params["stages"][1][0]                      # 64 -> 128 channels, stride 2, downsample
    x = rng.standard_normal((3, 17, 19, 64))            # odd spatial sizes, batch 3
    ra_block = {name: _fold(ra, cp, block[name], layout, dtype) for name in ("conv1", "conv2", "conv3", "down")}
    ra_block["stride"] = block["stride"]
    x_dev = cp.asarray(x if layout == "NHWC" else x.transpose(0, 3, 1, 2), dtype=dtype)
    got = _bottleneck_rocarray(ra, ra_block, cp.ascontiguousarray(x_dev), layout)

    t_block = {name: models._torch_conv_bn(torch, block[name], torch.float64) for name in
               ("conv1", "conv2", "conv3", "down")}
    F = torch.nn.functional

    def conv_bn(t, conv, stride=1, padding=0, relu=True):
        bn = conv["bn"]
        t = F.batch_norm(F.conv2d(t, conv["w"], None, stride, padding), bn["mean"], bn["var"], bn["weight"],
                         bn["bias"], False, 0.0, models.BN_EPS)
        return F.relu(t) if relu else t

    xt = torch.as_tensor(x.transpose(0, 3, 1, 2), device="cuda")
    s = block["stride"]
    out = conv_bn(conv_bn(conv_bn(xt, t_block["conv1"]), t_block["conv2"], s, 1), t_block["conv3"], relu=False)
    want = F.relu(out + conv_bn(xt, t_block["down"], s, relu=False)).cpu().numpy()
    if layout == "NHWC":
        want = want.transpose(0, 2, 3, 1)
    rtol = 2e-2 if dtype == "float16" else 1e-4
    np.testing.assert_allclose(cp.asnumpy(got).astype(np.float64), want, rtol=rtol, atol=rtol * np.abs(want).max())


def test_small_resnet50_matches_torch(rng):
    pytest.importorskip("torch")
    models.check_resnet50_small(rng)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_transformer_block_matches_torch(dtype, rng):
    torch = pytest.importorskip("torch")
    import cupy as cp

    params = models.transformer_weights(rng, 64, 256)
    x = rng.standard_normal((2, 41, 64))
    ra_p, _ = models.transformer_device_weights(params, dtype)
    t_p = {k: torch.as_tensor(v, dtype=torch.float64, device="cuda") for k, v in params.items()}
    got = models.transformer_rocarray(ra_p, cp.asarray(x, dtype), 4)
    want = models.transformer_torch(t_p, torch.as_tensor(x, device="cuda"), 4).cpu().numpy()
    rtol = 3e-2 if dtype == "float16" else 1e-4
    np.testing.assert_allclose(cp.asnumpy(got).astype(np.float64), want, rtol=rtol, atol=rtol * np.abs(want).max())
