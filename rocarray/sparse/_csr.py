"""Compressed Sparse Row arrays (``csr_array``)."""

from rocarray.sparse._base import sparray
from rocarray.sparse._compressed import _cs_base


class _csr_base(_cs_base):
    _format = "csr"


class csr_array(sparray, _csr_base):
    """Compressed Sparse Row array on the device (``scipy.sparse.csr_array``).

    Parameters
    ----------
    arg1 : object
        ``(data, indices, indptr)``; ``(data, (row, col))`` (duplicates are summed); a dense
        CuPy or NumPy 2-D array; another ``rocarray.sparse`` array or matrix; a SciPy or
        ``cupyx.scipy.sparse`` object; or a shape ``(M, N)`` for an empty array. Host inputs are
        copied to the device.
    shape : tuple of int, optional
        ``(M, N)``; inferred from the input when omitted.
    dtype : dtype, optional
        Value dtype: bool, integers, float32/64 or complex64/128.
    copy : bool
        Copy the input arrays instead of sharing them.

    Notes
    -----
    Index arrays are int32 or int64 (one dtype per array; other integer widths and floats are
    cast by SciPy's size rule). Unless ``rocarray.config.sparse_checks(False)`` is in effect, the
    indices are checked like SciPy's ``check_format(full_check=True)`` (``ValueError``) and
    their sortedness and duplicates detected (``has_sorted_indices``,
    ``has_canonical_format``).

    Examples
    --------
    >>> a = ra.sparse.csr_array(cupy.eye(3))         # doctest: +SKIP
    >>> (a @ cupy.ones(3)).get()                     # doctest: +SKIP
    array([1., 1., 1.])
    """
