"""Distributed N-D FFTs over a :class:`~rocarray.distributed.Communicator`.

Slab and pencil decompositions, natural and transposed layouts (see
:mod:`rocarray.distributed._fft` for the algorithm):

* :func:`fftn`, :func:`ifftn`: ``numpy.fft.fftn``/``ifftn`` of the global array, each rank passing
  and receiving its block;
* :func:`rfftn`, :func:`irfftn`: ``numpy.fft.rfftn``/``irfftn`` of the global array (real input
  in the natural layout; the spectrum in either layout);
* :func:`local_slices`: which block of the global array a rank holds.
"""

from rocarray.distributed._fft import fftn, ifftn, irfftn, local_slices, rfftn

__all__ = ["fftn", "ifftn", "rfftn", "irfftn", "local_slices"]
