"""The networks of ``rocarray/_checks/miopen_models.py`` (a ResNet-50 with every width divided by
16, a pre-norm transformer block) built from ``rocarray.nn`` calls run end to end on the CPU kernel
emulator in float64 and match NumPy float64 forwards of the same networks (convolutions from
``tests/miopen/conv_reference.py``). CPU tests: skipped where g++ is missing."""

import sys
from pathlib import Path

import numpy as np
import pytest

from kernel_emu import emulated_wave64_device  # noqa: F401 (the fixture)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from rocarray._checks import miopen_models as models

sys.path.insert(0, str(Path(__file__).parents[1] / "miopen"))
import conv_reference  # noqa: E402


@pytest.fixture
def emulated(emulated_wave64_device, monkeypatch):  # noqa: F811 (the imported fixture)
    """The wave64 emulator with rocblas on its SIMT tiles: the emulator has no matrix instructions."""
    from rocarray.rocblas._gemm import tiles

    monkeypatch.setattr(tiles, "has_f64_mma", lambda info: False)
    return emulated_wave64_device


def _conv_bn(x, conv, stride=1, pad=0, relu=True):
    """Convolution then inference batch norm (then ReLU), NHWC float64."""
    w = conv["w"].transpose(0, 2, 3, 1)
    r = w.shape[1]
    problem = conv_reference.make_problem(n=x.shape[0], c=x.shape[3], k=w.shape[0], input_size=x.shape[1:3],
                                          filter_size=r, stride=stride, pad=pad, layout="NHWC")
    y = conv_reference.forward(problem, x, w)
    bn = conv["bn"]
    y = (y - bn["mean"]) / np.sqrt(bn["var"] + models.BN_EPS) * bn["weight"] + bn["bias"]
    return np.maximum(y, 0) if relu else y


def _max_pool_3x3_s2_p1(x):
    n, h, w, c = x.shape
    padded = np.full((n, h + 2, w + 2, c), -np.inf)
    padded[:, 1:-1, 1:-1] = x
    ho, wo = (h - 1) // 2 + 1, (w - 1) // 2 + 1
    taps = [padded[:, i:i + 2 * ho:2, j:j + 2 * wo:2] for i in range(3) for j in range(3)]
    return np.max(taps, axis=0)


def _resnet50_numpy(params, x):
    y = _max_pool_3x3_s2_p1(_conv_bn(x, params["stem"], 2, 3))
    for layers in params["stages"]:
        for block in layers:
            s = block["stride"]
            out = _conv_bn(_conv_bn(_conv_bn(y, block["conv1"]), block["conv2"], s, 1), block["conv3"], relu=False)
            identity = _conv_bn(y, block["down"], s, relu=False) if "down" in block else y
            y = np.maximum(out + identity, 0)
    return y.mean(axis=(1, 2)) @ params["fc_w"].T + params["fc_b"]


def test_a_narrow_resnet50_runs_from_nn_calls_and_matches_numpy(emulated):
    rng = np.random.default_rng(20261205)
    params = models.resnet50_weights(rng, classes=5, width_scale=16)
    x = rng.standard_normal((1, 32, 32, 3))
    got = models.resnet50_rocarray(models.resnet50_rocarray_prepare(params, np.float64), emulated.array(x))
    np.testing.assert_allclose(np.asarray(got), _resnet50_numpy(params, x), rtol=1e-9, atol=1e-9)


def _layer_norm(x, w, b, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(-1, keepdims=True) + eps) * w + b


def _transformer_numpy(p, x, heads):
    from scipy.special import erf

    batch, seq, d = x.shape
    qkv = _layer_norm(x, p["ln1_w"], p["ln1_b"]) @ p["qkv_w"].T + p["qkv_b"]
    q, k, v = qkv.reshape(batch, seq, 3, heads, d // heads).transpose(2, 0, 3, 1, 4)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // heads)
    scores = np.where(np.tril(np.ones((seq, seq), bool)), scores, -np.inf)
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    attn = (probs / probs.sum(-1, keepdims=True)) @ v
    x = x + attn.transpose(0, 2, 1, 3).reshape(batch, seq, d) @ p["proj_w"].T + p["proj_b"]
    h = _layer_norm(x, p["ln2_w"], p["ln2_b"]) @ p["fc1_w"].T + p["fc1_b"]
    h = 0.5 * h * (1 + erf(h / np.sqrt(2)))
    return x + h @ p["fc2_w"].T + p["fc2_b"]


def test_a_transformer_block_runs_from_nn_calls_and_matches_numpy(emulated):
    rng = np.random.default_rng(20261206)
    params = models.transformer_weights(rng, 16, 32)
    x = rng.standard_normal((2, 5, 16))
    device_params = {k: emulated.array(np.ascontiguousarray(v.T if k.endswith("_w") and v.ndim == 2 else v))
                     for k, v in params.items()}
    got = models.transformer_rocarray(device_params, emulated.array(x), 2)
    np.testing.assert_allclose(np.asarray(got), _transformer_numpy(params, x, 2), rtol=1e-9, atol=1e-9)
