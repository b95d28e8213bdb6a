"""One convolution problem as every algorithm and the algorithm search see it.

Tensors are contiguous. Channels-first layout (``"NCHW"``, for 1-D to 3-D problems alike):
``x`` is ``(N, C, *input_size)``, ``w`` is ``(K, C // groups, *filter_size)``, ``y`` is
``(N, K, *output_size)``. Channels-last layout (``"NHWC"``): ``x`` is ``(N, *input_size, C)``,
``w`` is ``(K, *filter_size, C // groups)`` (MIOpen's and cuDNN's KRSC), ``y`` is
``(N, *output_size, K)``. Output channel ``k`` of group ``g = k // (K // groups)`` reads input
channels ``g * (C // groups)`` onwards.

Output element ``o`` (per spatial axis) reads input positions ``o * stride - pad + r * dilation``
for filter taps ``r``; positions outside ``[0, input_size)`` read zero. Only the padding before
each axis is stored: the padding after it is implied by ``output_size``.
"""

import dataclasses
import math

import numpy

#: The three directions of a convolution: ``y = conv(x, w)``; ``dx`` from ``dy`` and ``w``;
#: ``dw`` from ``x`` and ``dy``.
DIRECTIONS = ("forward", "backward_data", "backward_weights")
#: Layout names: channels first and channels last, whatever the number of spatial axes.
LAYOUTS = ("NCHW", "NHWC")


def output_length(length, filter_length, stride, pad_before, pad_after, dilation):
    """Spatial output length of one axis (torch's and MIOpen's formula, ``floor`` division)."""
    return (length + pad_before + pad_after - dilation * (filter_length - 1) - 1) // stride + 1


@dataclasses.dataclass(frozen=True)
class ConvProblem:
    """A convolution problem: sizes, geometry, dtype, layout and direction (see the module)."""

    direction: str
    n: int
    c: int
    k: int
    input_size: tuple
    filter_size: tuple
    output_size: tuple
    stride: tuple
    pad: tuple
    dilation: tuple
    groups: int
    dtype: numpy.dtype
    layout: str

    def __post_init__(self):
        if self.direction not in DIRECTIONS or self.layout not in LAYOUTS:
            raise ValueError(f"bad convolution problem: {self}")
        nd = len(self.input_size)
        if not (1 <= nd <= 3 and all(len(t) == nd for t in (self.filter_size, self.output_size, self.stride,
                                                                 self.pad, self.dilation))):
            raise ValueError(f"bad convolution problem: {self}")
        if self.c % self.groups or self.k % self.groups:
            raise ValueError(f"bad convolution problem: {self}")
        object.__setattr__(self, "dtype", numpy.dtype(self.dtype))

    @property
    def nd(self):
        """Number of spatial axes (1, 2 or 3)."""
        return len(self.input_size)

    @property
    def c_per_group(self):
        return self.c // self.groups

    @property
    def k_per_group(self):
        return self.k // self.groups

    @property
    def channels_last(self):
        return self.layout == "NHWC"

    def x_shape(self):
        """Shape of ``x`` (``dx``) in this problem's layout."""
        return ((self.n, *self.input_size, self.c) if self.channels_last else (self.n, self.c, *self.input_size))

    def w_shape(self):
        """Shape of ``w`` (``dw``) in this problem's layout."""
        return ((self.k, *self.filter_size, self.c_per_group) if self.channels_last
                else (self.k, self.c_per_group, *self.filter_size))

    def y_shape(self):
        """Shape of ``y`` (``dy``) in this problem's layout."""
        return ((self.n, *self.output_size, self.k) if self.channels_last else (self.n, self.k, *self.output_size))

    def flops(self):
        """Multiply-adds times two, the same count in every direction."""
        return 2 * self.n * self.k * math.prod(self.output_size) * self.c_per_group * math.prod(self.filter_size)

    def key(self):
        """The problem key of the algorithm search (exact sizes, like MIOpen's find-db)."""
        return (self.direction, self.dtype, self.layout, self.n, self.c, self.k, self.input_size, self.filter_size,
                self.stride, self.pad, self.dilation, self.groups)
