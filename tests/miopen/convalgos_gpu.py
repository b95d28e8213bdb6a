"""Shared helpers of the convalgos GPU tests: dtypes, device operands with a poisoned output,
and one call that runs an algorithm object and checks it against the float64 reference."""

import numpy as np

from conftest import to_device, to_host
from miopen import conv_reference as ref

from rocarray.miopen import _conv_registry
from rocarray.rocblas._gemm import mma as _mma

BF16 = _mma.bfloat16_dtype()
#: Every dtype the algorithms take (bfloat16 where ml_dtypes is installed).
DTYPES = ["float16", "float32", "float64"] + (["bfloat16"] if BF16 is not None else [])


def dtype_of(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def problem(direction="forward", dtype="float32", **args):
    return ref.make_problem(direction=direction, dtype=dtype_of(dtype), **args)


def _poisoned(shape, dtype):
    return to_device(np.full(shape, np.nan, dtype))


def run_checked(name, p, rng, slack=1.0, run=None):
    """Run algorithm ``name`` (or ``run(p, x, w, y)``) on random operands of ``p`` with the
    written tensor poisoned (NaN) first; check it against the reference; return the result."""
    x, w, y = ref.random_operands(rng, p)
    algorithm = _conv_registry.algorithms()[name]
    assert algorithm.applicable(p)
    dx, dw, dy = to_device(x), to_device(w), to_device(y)
    if p.direction == "forward":
        dy = _poisoned(p.y_shape(), p.dtype)
        result, operands = dy, (x, w, None)
    elif p.direction == "backward_data":
        dx = _poisoned(p.x_shape(), p.dtype)
        result, operands = dx, (None, w, y)
    else:
        dw = _poisoned(p.w_shape(), p.dtype)
        result, operands = dw, (x, None, y)
    (run or algorithm.run)(p, dx, dw, dy)
    got = to_host(result)
    ref.assert_conv_close(got, p, *operands, slack=slack)
    return got, operands
