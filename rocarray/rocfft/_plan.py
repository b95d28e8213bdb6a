"""rocFFT-style plan descriptions, executed through the cached schedules of
:mod:`rocarray.rocfft._transforms`."""

import numpy

from rocarray._core import args, backend
from rocarray.rocfft import _transforms

TRANSFORMS = ("c2c", "r2c", "c2r")
DIRECTIONS = ("forward", "inverse")
PRECISIONS = ("single", "double")
PLACEMENTS = ("inplace", "notinplace")
#: Buffer dtype by (precision, real side).
_DTYPES = {("single", False): numpy.dtype(numpy.complex64), ("double", False): numpy.dtype(numpy.complex128),
           ("single", True): numpy.dtype(numpy.float32), ("double", True): numpy.dtype(numpy.float64)}


def _contiguous_strides(lengths):
    strides = []
    step = 1
    for n in reversed(lengths):
        strides.append(step)
        step *= n
    return tuple(reversed(strides)), step


class Plan:
    """A planned FFT as rocFFT describes one: lengths, batch, layout, precision, direction and
    transform type.

    Like ``rocfft_plan_create``: ``lengths`` are row-major (the last one is contiguous by default);
    strides and distances count elements of the input/output type (real elements on the real side
    of r2c/c2r, complex elements otherwise).

    Parameters
    ----------
    lengths : int or sequence of int
        Transform lengths (1, 2 or 3 dimensions; any rank works).
    transform : {"c2c", "r2c", "c2r"}
    direction : {"forward", "inverse"}, optional
        Default: inverse for c2r, forward otherwise (r2c is always forward, c2r always inverse).
    precision : {"single", "double"}
    batch : int
        Number of transforms.
    in_strides : sequence of int, optional
        Element strides of the input per dimension; default C-contiguous (for c2r the complex
        input's last length is ``lengths[-1] // 2 + 1``).
    in_distance : int, optional
        Input elements between consecutive batches; default the size of one (strided) transform.
    out_strides : sequence of int, optional
        Element strides of the output per dimension; default C-contiguous (for r2c the complex
        output's last length is ``lengths[-1] // 2 + 1``).
    out_distance : int, optional
        Output elements between consecutive batches; default the size of one (strided) transform.
    placement : {"notinplace", "inplace"}
        ``inplace`` writes the result into the input buffer (c2c only).

    Notes
    -----
    A ``Plan`` is the user-held description of a transform (``rocfft_plan_create``'s arguments,
    checked once); it holds no device state and is not itself kept anywhere. What rocarray calls
    a *plan* internally, the prepared kernel launches of one call signature, lives in rocarray's
    one plan cache (:data:`rocarray.rocfft.plan_cache`, also ``rocarray.fft.config.get_plan_cache()``):
    :meth:`execute` finds there the schedules of the plan's layout on the buffers' device, built
    on the first execution. Clearing that cache or resizing it affects every ``Plan``.
    """

    def __init__(self, lengths, *, transform="c2c", direction=None, precision="single", batch=1,
                 in_strides=None, in_distance=None, out_strides=None, out_distance=None,
                 placement="notinplace"):
        lengths = (int(lengths),) if numpy.ndim(lengths) == 0 else tuple(int(n) for n in lengths)
        if not lengths or any(n < 1 for n in lengths):
            raise ValueError(f"lengths must be positive, got {lengths}")
        if transform not in TRANSFORMS:
            raise ValueError(f"transform must be one of {TRANSFORMS}, got {transform!r}")
        if direction is None:
            direction = "inverse" if transform == "c2r" else "forward"
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        if transform == "r2c" and direction != "forward" or transform == "c2r" and direction != "inverse":
            raise ValueError(f"{transform} runs only {'forward' if transform == 'r2c' else 'inverse'}")
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        if placement not in PLACEMENTS:
            raise ValueError(f"placement must be one of {PLACEMENTS}, got {placement!r}")
        if placement == "inplace" and transform != "c2c":
            raise ValueError("in-place real transforms are not supported; use placement='notinplace'")
        batch = int(batch)
        if batch < 1:
            raise ValueError(f"batch must be positive, got {batch}")
        self.lengths, self.transform, self.direction = lengths, transform, direction
        self.precision, self.batch, self.placement = precision, batch, placement
        in_shape = lengths if transform != "c2r" else lengths[:-1] + (lengths[-1] // 2 + 1,)
        out_shape = lengths if transform != "r2c" else lengths[:-1] + (lengths[-1] // 2 + 1,)
        self.in_shape, self.out_shape = (batch,) + in_shape, (batch,) + out_shape
        self.in_strides, default_in = self._strides(in_strides, in_shape, "in_strides")
        self.out_strides, default_out = self._strides(out_strides, out_shape, "out_strides")
        self.in_distance = default_in if in_distance is None else int(in_distance)
        self.out_distance = default_out if out_distance is None else int(out_distance)
        if self.in_distance < 0 or self.out_distance < 0:
            raise ValueError("in_distance and out_distance must be non-negative")
        if batch > 1 and self.out_distance == 0:
            raise ValueError("out_distance must be positive when batch > 1 (batches would overlap)")

    @staticmethod
    def _strides(strides, shape, name):
        default, size = _contiguous_strides(shape)
        if strides is None:
            return default, size
        strides = tuple(int(s) for s in strides)
        if len(strides) != len(shape):
            raise ValueError(f"{name} needs {len(shape)} entries, got {len(strides)}")
        if any(s < 0 for s in strides):
            raise ValueError(f"{name} must be non-negative, got {strides}")
        extent = 1 + sum((n - 1) * abs(s) for n, s in zip(shape, strides))
        return strides, extent

    @property
    def in_dtype(self):
        """dtype of the input buffer (real for r2c)."""
        return _DTYPES[(self.precision, self.transform == "r2c")]

    @property
    def out_dtype(self):
        """dtype of the output buffer (real for c2r)."""
        return _DTYPES[(self.precision, self.transform == "c2r")]

    def _view(self, buf, dtype, shape, strides, distance, name):
        cupy = backend.cupy()
        args.device_array(buf, name, "rocfft.Plan.execute")
        if buf.dtype != dtype:
            raise TypeError(f"{name} must have dtype {dtype}, got {buf.dtype}")
        if not (buf.flags.c_contiguous or buf.flags.f_contiguous):
            raise ValueError(f"{name} must be a contiguous buffer (the plan's strides describe its layout)")
        need = (shape[0] - 1) * distance + 1 + sum((n - 1) * s for n, s in zip(shape[1:], strides))
        if buf.size < need:
            raise ValueError(f"{name} holds {buf.size} elements; the plan's layout needs {need}")
        item = dtype.itemsize
        return cupy.ndarray(shape, dtype, memptr=buf.data,
                            strides=(distance * item,) + tuple(s * item for s in strides))

    def execute(self, x, out=None, *, scale=1.0):
        """Run the plan.

        Parameters
        ----------
        x : cupy.ndarray
            Input buffer of :attr:`in_dtype` laid out as the plan says.
        out : cupy.ndarray, optional
            Output buffer (``notinplace``); when omitted, a 1-D buffer just large enough for the
            plan's output layout is allocated (elements outside the layout are uninitialized).
            Ignored for ``inplace`` plans, which write into ``x``.
        scale : float
            Factor applied to the result (rocFFT's ``scale_factor``).

        Returns
        -------
        cupy.ndarray
            The output buffer.
        """
        cupy = backend.cupy()
        xin = self._view(x, self.in_dtype, self.in_shape, self.in_strides, self.in_distance, "x")
        if self.placement == "inplace":
            out = x
            dst_strides, dst_distance = self.in_strides, self.in_distance
        else:
            dst_strides, dst_distance = self.out_strides, self.out_distance
            if out is None:  # a buffer just large enough for the plan's output layout
                need = (self.batch - 1) * dst_distance + 1 + sum(
                    (n - 1) * st for n, st in zip(self.out_shape[1:], dst_strides))
                out = cupy.empty(need, self.out_dtype)
        yout = self._view(out, self.out_dtype, self.out_shape, dst_strides, dst_distance, "out")
        axes = tuple(range(1, len(self.in_shape)))
        if self.transform == "c2c":
            forward = self.direction == "forward"
            if self.placement == "inplace":
                for i, axis in enumerate(sorted(axes, reverse=True)):
                    _transforms.transform_axis(xin, xin, axis, forward=forward,
                                               scale=scale if i == len(axes) - 1 else 1.0)
                return out
            result = _transforms.c2c(xin, axes, forward=forward, scale=scale)
        elif self.transform == "r2c":
            result = _transforms.r2c(xin, axes, scale=scale)
        else:
            result = _transforms.c2r(xin, axes, self.lengths[-1], scale=scale)
        yout[...] = result
        return out
