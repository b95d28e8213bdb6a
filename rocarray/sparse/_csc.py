"""Compressed Sparse Column arrays (``csc_array``)."""

from rocarray.sparse._base import sparray
from rocarray.sparse._compressed import _cs_base


class _csc_base(_cs_base):
    _format = "csc"


class csc_array(sparray, _csc_base):
    """Compressed Sparse Column array on the device (``scipy.sparse.csc_array``).

    Parameters
    ----------
    arg1 : object
        ``(data, indices, indptr)`` with row indices and column pointers; ``(data, (row, col))``;
        a dense CuPy or NumPy 2-D array; another sparse array or matrix; a SciPy or
        ``cupyx.scipy.sparse`` object; or a shape ``(M, N)``. Host inputs are copied to the device.
    shape : tuple of int, optional
    dtype : dtype, optional
    copy : bool

    Notes
    -----
    Stored as the CSR parts of the transpose; products use the transposed CSR kernels, so
    ``A @ x`` needs no conversion. Checks and index dtypes as for :class:`csr_array`.

    Examples
    --------
    >>> a = ra.sparse.csc_array(cupy.eye(3))         # doctest: +SKIP
    >>> a.T.format                                   # doctest: +SKIP
    'csr'
    """
