"""Multi-GPU collectives over NCCL (RCCL on ROCm) through ``cupy.cuda.nccl``, a distributed N-D FFT
and arrays split across ranks.

* :class:`Communicator`: ``all_reduce`` (sum, prod, min, max, avg), ``reduce``, ``broadcast``,
  ``all_gather``, ``reduce_scatter``, ``all_to_all`` (equal and uneven), ``send``/``recv`` and
  ``barrier`` on CuPy arrays, with every call's arguments checked across ranks.
* :func:`init` / :func:`world`: one process per GPU, started by ``mpirun``/``srun`` (mpi4py) or a
  torchrun-style launcher (``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``).
* :meth:`Communicator.local` and :func:`group`: one process driving several GPUs;
  :func:`run_threads` runs per-rank code (the FFT, the split arrays) on one thread per GPU there.
* :class:`DistributedError`: a peer that does not arrive within the timeout, or a failed communicator.
* :mod:`rocarray.distributed.fft`: slab and pencil N-D FFTs of distributed arrays.
* :func:`scatter`, :func:`gather`: split an array along one axis across ranks and back.
* :func:`sum`, :func:`dot`, :func:`norm`: reductions over such arrays.
"""

from rocarray.distributed._comm import Communicator, group
from rocarray.distributed._errors import DistributedError
from rocarray.distributed._rendezvous import init, world
from rocarray.distributed._threads import run_threads
from rocarray.distributed import fft
from rocarray.distributed._arrays import dot, gather, norm, scatter, sum  # noqa: A004  (numpy's names)

__all__ = ["Communicator", "DistributedError", "group", "init", "world", "run_threads", "fft", "scatter", "gather",
           "sum", "dot", "norm"]
