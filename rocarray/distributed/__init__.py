"""Distributed rocarray: collectives over NCCL/RCCL, a distributed N-D FFT and arrays split across
ranks.

* :mod:`rocarray.distributed.fft`: slab and pencil N-D FFTs of distributed arrays.
* :func:`scatter`, :func:`gather`: split an array along one axis across ranks and back.
* :func:`sum`, :func:`dot`, :func:`norm`: reductions over such arrays.
"""

from rocarray.distributed import fft
from rocarray.distributed._arrays import dot, gather, norm, scatter, sum  # noqa: A004  (numpy's names)

__all__ = ["fft", "scatter", "gather", "sum", "dot", "norm"]
