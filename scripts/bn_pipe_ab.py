"""The batch-norm training forward's pipeline shapes against each other and cuDNN, on several
problems, in one process.

    python scripts/bn_pipe_ab.py                     # float32, the default problem list
    python scripts/bn_pipe_ab.py float16 64x128x56x56

For each problem (N x C x H x W, NCHW) and each compiled (ITEMS, DEPTH) of
``_batchnorm.PIPE_SHAPES``, then the shape ``pipe_shape`` picks (``auto``): the geometry (items
a channel x channels a step / steps), the time of one call of ``ra.nn.batch_norm`` (training,
running statistics: the median of 7 timings of 10 calls queued back to back) and the rate of its
2 x N C H W elements; then torch's (cuDNN) the same way in the same process. The shapes
alternate twice; the better of the two medians is shown.
"""

import sys

import cupy
import numpy

import rocarray as ra
from rocarray.miopen import _batchnorm

from linalg_profile import median_ms  # this script's folder is on the path

PROBLEMS = ("64x256x56x56", "64x64x112x112", "64x128x56x56", "64x512x28x28", "128x1024x14x14", "128x256x28x28")


def _median_ms(fn, repeat=7, calls=10):
    """One call's time: the median of ``repeat`` timings of ``calls`` calls queued back to back."""
    fn()

    def batch():
        for _ in range(calls):
            fn()
    return median_ms(cupy, batch, repeat) / calls


def main(argv):
    dtype = numpy.dtype(next((a for a in argv if a.startswith("float")), "float32"))
    problems = [a for a in argv if "x" in a and a[0].isdigit()] or list(PROBLEMS)
    try:
        import torch
    except ImportError:
        torch = None
    device = cupy.cuda.runtime.getDevice()
    print(f"{cupy.cuda.runtime.getDeviceProperties(device)['name'].decode()}, {dtype}")
    for text in problems:
        shape = tuple(int(v) for v in text.split("x"))
        C = shape[1]
        x = cupy.random.RandomState(1).standard_normal(shape, dtype=numpy.float32).astype(dtype)
        acc = _batchnorm.acc_dtype(dtype)
        rm, rv, w, b = cupy.zeros(C, acc), cupy.ones(C, acc), cupy.ones(C, acc), cupy.zeros(C, acc)
        gbytes = 2 * x.nbytes / 1e9
        results = {}
        for _ in range(2):
            for items, depth in list(_batchnorm.PIPE_SHAPES) + [(None, 1)]:
                _batchnorm.PIPE_ITEMS, _batchnorm.PIPE_DEPTH = items, depth
                ms = _median_ms(lambda: ra.nn.batch_norm(x, rm, rv, w, b, True))
                results.setdefault((items, depth), []).append(ms)
        line = f"{text:>15s}"
        for (items, depth), ms in results.items():
            _batchnorm.PIPE_ITEMS, _batchnorm.PIPE_DEPTH = items, depth
            geo = _batchnorm.pipe_shape(shape, "NCHW", dtype,
                                        lambda i, d: _batchnorm.pipe_blocks(device, dtype, i, d))
            steps = "-" if geo is None else f"{geo[4]}x{geo[5]}/{-(-C // geo[5])}"
            name = "auto" if items is None else f"({items},{depth})"
            if items is None and geo is not None:
                name = f"auto=({geo[0]},{geo[1]})"
            best = min(ms)
            line += f" | {name} {steps:>9s} {best * 1e3:5.0f} us {gbytes / best:5.2f} TB/s"
        if torch is not None:
            xt = torch.as_tensor(x, device="cuda")
            trm, trv, tw, tb = (torch.as_tensor(v, device="cuda") for v in (rm.copy(), rv.copy(), w, b))
            ms = _median_ms(lambda: torch.nn.functional.batch_norm(xt, trm, trv, tw, tb, True))
            line += f" | cuDNN {ms * 1e3:6.0f} us"
        print(line)
    _batchnorm.PIPE_ITEMS, _batchnorm.PIPE_DEPTH = None, 1


if __name__ == "__main__":
    main(sys.argv[1:])
