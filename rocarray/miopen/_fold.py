"""Batch normalization folded into the preceding convolution's weights and bias, for inference:
``bn(conv(x, w) + b) = conv(x, w * s) + (b - mean) * s + beta`` with ``s = gamma / sqrt(var + eps)``
per output channel (the first axis of the weights in both layouts)."""

import numpy

from rocarray._core import backend


def _wide(a, dtype):
    """``a`` in the arithmetic dtype (bfloat16 widened by its bits: CuPy has no bfloat16 math)."""
    cupy = backend.cupy()
    if a.dtype.name == "bfloat16":
        return (a.view(cupy.uint16).astype(cupy.uint32) << 16).view(cupy.float32).astype(dtype)
    return a.astype(dtype)


def _narrow(v, dtype):
    """``v`` (float32 or float64) rounded to ``dtype`` (bfloat16: to nearest even, NaN kept)."""
    cupy = backend.cupy()
    if dtype.name != "bfloat16":
        return v.astype(dtype)
    bits = v.astype(cupy.float32).view(cupy.uint32)
    rounded = (bits + cupy.uint32(0x7FFF) + ((bits >> 16) & cupy.uint32(1))) >> 16
    nan = (bits & cupy.uint32(0x7FFFFFFF)) > cupy.uint32(0x7F800000)
    return cupy.where(nan, (bits >> 16) | cupy.uint32(0x40), rounded).astype(cupy.uint16).view(dtype)


def fold_batchnorm(weight, bias, running_mean, running_var, bn_weight, bn_bias, eps):
    """The weights and bias of a convolution followed by an inference batch norm, as one convolution.

    Parameters
    ----------
    weight : cupy.ndarray
        Convolution weights, output channels on axis 0 (either layout).
    bias, bn_weight, bn_bias : cupy.ndarray or None
        Vectors of ``weight.shape[0]`` elements (None: zeros, ones, zeros).
    running_mean, running_var : cupy.ndarray
        The batch norm's statistics, ``weight.shape[0]`` elements.
    eps : float
        Added to the variance.

    Returns
    -------
    tuple of cupy.ndarray
        ``(weight, bias)`` in ``weight``'s dtype, computed in float32 (float64 for float64 data).
    """
    dtype = weight.dtype
    wide = numpy.dtype(numpy.float64 if dtype == numpy.float64 else numpy.float32)
    cupy = backend.cupy()
    scale = 1 / cupy.sqrt(_wide(running_var, wide) + wide.type(eps))
    if bn_weight is not None:
        scale = scale * _wide(bn_weight, wide)
    shift = -_wide(running_mean, wide) if bias is None else _wide(bias, wide) - _wide(running_mean, wide)
    shift = shift * scale
    if bn_bias is not None:
        shift = shift + _wide(bn_bias, wide)
    folded = _wide(weight, wide) * scale.reshape((-1,) + (1,) * (weight.ndim - 1))
    return _narrow(folded, dtype), _narrow(shift, dtype)
