"""Distributed N-D FFTs over a :class:`~rocarray.distributed.Communicator`.

Slab and pencil decompositions, natural and transposed layouts (see
:mod:`rocarray.distributed._fft` for the algorithm):

* :func:`fftn`, :func:`ifftn`: ``numpy.fft.fftn``/``ifftn`` of the global array, each rank passing
  and receiving its block;
* :func:`local_slices`: which block of the global array a rank holds.
"""

from rocarray.distributed._fft import fftn, ifftn, local_slices

__all__ = ["fftn", "ifftn", "local_slices"]
