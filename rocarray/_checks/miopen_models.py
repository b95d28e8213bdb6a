"""Whole networks built from ``rocarray.nn`` calls, against the same networks in torch (``python -m rocarray``).

Two models, each written twice from one set of weights: once with ``rocarray.nn`` and
``rocarray.matmul``, once with ``torch.nn.functional`` (torch eager, cuDNN underneath):

* **ResNet-50** (He et al. 2016, the v1.5 variant with the stride on the 3×3 convolution of each
  bottleneck) for inference: 7×7 stem, max-pool, 3 + 4 + 6 + 3 bottlenecks, global average pool,
  fully connected 2048 → 1000. rocarray folds every batch norm into its convolution
  (:func:`rocarray.nn.fold_batchnorm`) and fuses bias and ReLU into the convolution's epilogue;
  torch runs convolution, batch norm and ReLU as separate eager calls, as torchvision's model does.
* A **pre-norm transformer block**: layer norm, QKV projection, causal scaled-dot-product
  attention, output projection, residual; layer norm, MLP with GELU, residual.

The self-checks run both on small inputs and compare; the bench case is the issue's ResNet-50
forward, float16, channels last, batch 64, 224 × 224.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "miopen"
#: Bottleneck stages of ResNet-50: (blocks, width); the output width is four times the width.
RESNET50_STAGES = ((3, 64), (4, 128), (6, 256), (3, 512))
BN_EPS = 1e-5


# --------------------------------------------------------------------------------------------
# weights (host, NumPy, torch's layouts)
# --------------------------------------------------------------------------------------------

def _conv_bn(rng, k, c, r):
    """He-initialized ``(K, C, R, R)`` weights and random batch-norm parameters near identity."""
    w = rng.standard_normal((k, c, r, r)) * numpy.sqrt(2.0 / (c * r * r))
    bn = {"weight": 1.0 + 0.1 * rng.standard_normal(k), "bias": 0.1 * rng.standard_normal(k),
          "mean": 0.1 * rng.standard_normal(k), "var": 1.0 + 0.1 * rng.random(k)}
    return {"w": w, "bn": bn}


def resnet50_weights(rng, classes=1000, width_scale=1):
    """ResNet-50's weights as a nested dict of float64 NumPy arrays in torch's layouts.

    ``width_scale`` divides every width (a small network for the self-check)."""
    params = {"stem": _conv_bn(rng, 64 // width_scale, 3, 7), "stages": []}
    c = 64 // width_scale
    for stage, (blocks, width) in enumerate(RESNET50_STAGES):
        width //= width_scale
        layers = []
        for b in range(blocks):
            block = {"conv1": _conv_bn(rng, width, c, 1), "conv2": _conv_bn(rng, width, width, 3),
                     "conv3": _conv_bn(rng, 4 * width, width, 1),
                     "stride": 2 if (b == 0 and stage > 0) else 1}
            if b == 0:
                block["down"] = _conv_bn(rng, 4 * width, c, 1)
            layers.append(block)
            c = 4 * width
        params["stages"].append(layers)
    params["fc_w"] = rng.standard_normal((classes, c)) / numpy.sqrt(c)
    params["fc_b"] = 0.01 * rng.standard_normal(classes)
    return params


def transformer_weights(rng, d_model, d_ff):
    """A pre-norm transformer block's weights (float64 NumPy; linear weights as ``(out, in)``)."""
    def linear(o, i):
        return rng.standard_normal((o, i)) / numpy.sqrt(i), 0.02 * rng.standard_normal(o)

    qkv_w, qkv_b = linear(3 * d_model, d_model)
    proj_w, proj_b = linear(d_model, d_model)
    fc1_w, fc1_b = linear(d_ff, d_model)
    fc2_w, fc2_b = linear(d_model, d_ff)
    return {"ln1_w": 1 + 0.1 * rng.standard_normal(d_model), "ln1_b": 0.1 * rng.standard_normal(d_model),
            "ln2_w": 1 + 0.1 * rng.standard_normal(d_model), "ln2_b": 0.1 * rng.standard_normal(d_model),
            "qkv_w": qkv_w, "qkv_b": qkv_b, "proj_w": proj_w, "proj_b": proj_b,
            "fc1_w": fc1_w, "fc1_b": fc1_b, "fc2_w": fc2_w, "fc2_b": fc2_b}


# --------------------------------------------------------------------------------------------
# ResNet-50 in rocarray.nn (channels last, batch norm folded, bias + ReLU fused)
# --------------------------------------------------------------------------------------------

def _fold(cp, conv, dtype):
    """Fold a conv's batch norm into channels-last weights and a bias on the device."""
    import rocarray as ra

    bn = conv["bn"]
    fold = numpy.float32 if numpy.dtype(dtype).itemsize < 4 else dtype  # 16-bit weights: fold in float32
    w = cp.asarray(conv["w"].transpose(0, 2, 3, 1), dtype=fold)
    w, b = ra.nn.fold_batchnorm(w, None, cp.asarray(bn["mean"], fold), cp.asarray(bn["var"], fold),
                                cp.asarray(bn["weight"], fold), cp.asarray(bn["bias"], fold), BN_EPS, layout="NHWC")
    return cp.ascontiguousarray(w.astype(dtype)), cp.ascontiguousarray(b.astype(dtype))


def resnet50_rocarray_prepare(params, dtype):
    """The device weights of :func:`resnet50_rocarray` (folded, channels last, in ``dtype``)."""
    cp = backend.cupy()
    prepared = {"stem": _fold(cp, params["stem"], dtype), "stages": []}
    for layers in params["stages"]:
        prepared["stages"].append([
            {name: _fold(cp, block[name], dtype) for name in ("conv1", "conv2", "conv3", "down") if name in block}
            | {"stride": block["stride"]} for block in layers])
    prepared["fc_w"] = cp.asarray(params["fc_w"].T, dtype=dtype)
    prepared["fc_b"] = cp.asarray(params["fc_b"], dtype=dtype)
    return prepared


def resnet50_rocarray(prepared, x):
    """ResNet-50 inference on channels-last ``x`` of shape ``(N, H, W, 3)``; returns ``(N, classes)``."""
    import rocarray as ra

    nn = ra.nn
    w, b = prepared["stem"]
    y = nn.conv2d(x, w, b, stride=2, padding=3, layout="NHWC", activation="relu")
    y = nn.max_pool2d(y, 3, stride=2, padding=1, layout="NHWC")
    for layers in prepared["stages"]:
        for block in layers:
            s = block["stride"]
            out = nn.conv2d(y, *block["conv1"], layout="NHWC", activation="relu")
            out = nn.conv2d(out, *block["conv2"], stride=s, padding=1, layout="NHWC", activation="relu")
            out = nn.conv2d(out, *block["conv3"], layout="NHWC")
            identity = nn.conv2d(y, *block["down"], stride=s, layout="NHWC") if "down" in block else y
            y = nn.relu(out + identity)
    pooled = nn.global_avg_pool(y, layout="NHWC").reshape(y.shape[0], -1)
    return ra.matmul(pooled, prepared["fc_w"]) + prepared["fc_b"]


# --------------------------------------------------------------------------------------------
# the same networks in torch
# --------------------------------------------------------------------------------------------

def _torch_conv_bn(torch, conv, dtype):
    bn = conv["bn"]
    as_t = lambda a: torch.as_tensor(a, dtype=dtype, device="cuda")  # noqa: E731
    return {"w": as_t(conv["w"]).contiguous(memory_format=torch.channels_last),
            "bn": {k: as_t(v) for k, v in bn.items()}}


def resnet50_torch_prepare(params, dtype):
    """The device weights of :func:`resnet50_torch` (torch layouts, channels-last memory)."""
    torch = harness.require("torch")

    prepared = {"stem": _torch_conv_bn(torch, params["stem"], dtype), "stages": []}
    for layers in params["stages"]:
        prepared["stages"].append([
            {name: _torch_conv_bn(torch, block[name], dtype) for name in ("conv1", "conv2", "conv3", "down")
             if name in block} | {"stride": block["stride"]} for block in layers])
    prepared["fc_w"] = torch.as_tensor(params["fc_w"], dtype=dtype, device="cuda")
    prepared["fc_b"] = torch.as_tensor(params["fc_b"], dtype=dtype, device="cuda")
    return prepared


def resnet50_torch(prepared, x):
    """torch eager ResNet-50 inference on an NCHW tensor in channels-last memory."""
    import torch.nn.functional as F

    def conv_bn(t, conv, stride=1, padding=0, relu=True):
        bn = conv["bn"]
        t = F.conv2d(t, conv["w"], None, stride, padding)
        t = F.batch_norm(t, bn["mean"], bn["var"], bn["weight"], bn["bias"], False, 0.0, BN_EPS)
        return F.relu(t) if relu else t

    y = conv_bn(x, prepared["stem"], 2, 3)
    y = F.max_pool2d(y, 3, 2, 1)
    for layers in prepared["stages"]:
        for block in layers:
            s = block["stride"]
            out = conv_bn(y, block["conv1"])
            out = conv_bn(out, block["conv2"], s, 1)
            out = conv_bn(out, block["conv3"], relu=False)
            identity = conv_bn(y, block["down"], s, relu=False) if "down" in block else y
            y = F.relu(out + identity)
    pooled = F.adaptive_avg_pool2d(y, 1).flatten(1)
    return F.linear(pooled, prepared["fc_w"], prepared["fc_b"])


def transformer_rocarray(p, x, heads):
    """A pre-norm transformer block on ``x`` of shape ``(B, S, D)`` (``p``: device weights as
    :func:`transformer_weights` gives them, linear weights transposed to ``(in, out)``)."""
    import rocarray as ra

    nn = ra.nn
    batch, seq, d = x.shape
    h = nn.layer_norm(x, (d,), p["ln1_w"], p["ln1_b"])
    qkv = ra.matmul(h, p["qkv_w"]) + p["qkv_b"]
    qkv = qkv.reshape(batch, seq, 3, heads, d // heads).transpose(2, 0, 3, 1, 4)
    attn = nn.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
    attn = attn.transpose(0, 2, 1, 3).reshape(batch, seq, d)
    x = x + ra.matmul(attn, p["proj_w"]) + p["proj_b"]
    h = nn.layer_norm(x, (d,), p["ln2_w"], p["ln2_b"])
    h = nn.gelu(ra.matmul(h, p["fc1_w"]) + p["fc1_b"])
    return x + ra.matmul(h, p["fc2_w"]) + p["fc2_b"]


def transformer_torch(p, x, heads):
    """:func:`transformer_rocarray` in torch (linear weights as ``(out, in)``)."""
    import torch.nn.functional as F

    batch, seq, d = x.shape
    h = F.layer_norm(x, (d,), p["ln1_w"], p["ln1_b"])
    qkv = F.linear(h, p["qkv_w"], p["qkv_b"]).reshape(batch, seq, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
    attn = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
    x = x + F.linear(attn.transpose(1, 2).reshape(batch, seq, d), p["proj_w"], p["proj_b"])
    h = F.gelu(F.linear(F.layer_norm(x, (d,), p["ln2_w"], p["ln2_b"]), p["fc1_w"], p["fc1_b"]))
    return x + F.linear(h, p["fc2_w"], p["fc2_b"])


def transformer_device_weights(params, dtype):
    """``(rocarray weights, torch weights)`` on the device from :func:`transformer_weights`."""
    torch = harness.require("torch")

    cp = backend.cupy()
    ra_p = {k: cp.asarray(v.T if k.endswith("_w") and v.ndim == 2 else v, dtype=dtype) for k, v in params.items()}
    tdtype = getattr(torch, numpy.dtype(dtype).name)
    t_p = {k: torch.as_tensor(v, dtype=tdtype, device="cuda") for k, v in params.items()}
    return ra_p, t_p


# --------------------------------------------------------------------------------------------
# self-checks and the bench case
# --------------------------------------------------------------------------------------------

def _to_torch_nchw(torch, x_nhwc):
    """A channels-last device array as torch's NCHW view in channels-last memory (no copy)."""
    return torch.as_tensor(x_nhwc, device="cuda").permute(0, 3, 1, 2)


@harness.self_check(_LIB, "resnet50_small_vs_torch")
def check_resnet50_small(rng):
    """A ResNet-50 with every width divided by 8, float32, batch 2, 64 × 64, against torch in float64."""
    torch = harness.require("torch")

    cp = backend.cupy()
    params = resnet50_weights(rng, classes=10, width_scale=8)
    x = rng.standard_normal((2, 64, 64, 3))
    got = resnet50_rocarray(resnet50_rocarray_prepare(params, numpy.float32), cp.asarray(x, numpy.float32))
    want = resnet50_torch(resnet50_torch_prepare(params, torch.float64),
                          _to_torch_nchw(torch, cp.asarray(x)).contiguous(memory_format=torch.channels_last))
    harness.assert_close(got, want.cpu().numpy(), numpy.float32, 2000, factor=64, name="resnet50 logits")


@harness.self_check(_LIB, "transformer_block_vs_torch")
def check_transformer_block(rng):
    """One pre-norm transformer block, float32, B2 S37 D64 with 4 heads, against torch in float64."""
    torch = harness.require("torch")

    cp = backend.cupy()
    params = transformer_weights(rng, 64, 256)
    x = rng.standard_normal((2, 37, 64))
    ra_p, _ = transformer_device_weights(params, numpy.float32)
    t_p = {k: torch.as_tensor(v, dtype=torch.float64, device="cuda") for k, v in params.items()}
    got = transformer_rocarray(ra_p, cp.asarray(x, numpy.float32), 4)
    want = transformer_torch(t_p, torch.as_tensor(x, device="cuda"), 4)
    harness.assert_close(got, want.cpu().numpy(), numpy.float32, 256, factor=64, name="transformer block")


def _resnet50_setup(batch=64, size=224, dtype=numpy.float16):
    torch = harness.require("torch")

    cp = backend.cupy()
    rng = numpy.random.default_rng(0)
    params = resnet50_weights(rng)
    x = cp.asarray(rng.standard_normal((batch, size, size, 3)), dtype=dtype)
    ra_weights = resnet50_rocarray_prepare(params, dtype)
    t_weights = resnet50_torch_prepare(params, getattr(torch, numpy.dtype(dtype).name))
    return ra_weights, t_weights, x, _to_torch_nchw(torch, x)


def _resnet50_flops(batch=64, size=224):
    """Two times the multiply-adds of ResNet-50's convolutions and classifier at this input size."""
    flops, h = 0, size // 2                       # after the stem's stride 2
    flops += 2 * batch * 64 * 3 * 49 * h * h
    h //= 2                                       # max-pool
    c = 64
    for stage, (blocks, width) in enumerate(RESNET50_STAGES):
        for b in range(blocks):
            s = 2 if (b == 0 and stage > 0) else 1
            h_out = h // s
            flops += 2 * batch * h * h * width * c             # 1×1 reduce at the input resolution
            flops += 2 * batch * h_out * h_out * width * width * 9
            flops += 2 * batch * h_out * h_out * 4 * width * width
            if b == 0:
                flops += 2 * batch * h_out * h_out * 4 * width * c
            c, h = 4 * width, h_out
    return flops + 2 * batch * c * 1000


harness.bench_case(BenchCase(
    name="miopen.resnet50_forward_f16_nhwc_n64", library=_LIB, setup=_resnet50_setup,
    rocarray=lambda ra_w, t_w, x, xt: resnet50_rocarray(ra_w, x),
    vendor=lambda ra_w, t_w, x, xt: resnet50_torch(t_w, xt),
    flops=_resnet50_flops(), memory_bound=False))
