"""NumPy stand-ins for the rocblas routines and the one-block kernels the rocsolver Cholesky and
trtri drivers call, on host 1-D column-major buffers: the CPU tests run the drivers' recursion and
bookkeeping on these (no device) and compare with NumPy.

Each stand-in reads and writes only what the real routine does (the ``uplo`` triangle of a
syrk/herk result, B of a trsm/trmm, the stored triangle of a kernel's block), so a driver that
touched anything else would show in the tests' NaN-filled other triangle.
"""

import numpy as np


def view(buf, rows, cols, ld):
    """The rows x cols column-major matrix at ``buf[0]`` as a writable 2-D view."""
    isz = buf.dtype.itemsize
    return np.lib.stride_tricks.as_strided(buf, shape=(rows, cols), strides=(isz, ld * isz))


def tri(m, uplo, unit=False):
    t = np.triu(m) if uplo == "U" else np.tril(m)
    if unit:
        np.fill_diagonal(t, 1)
    return t


def op(m, trans):
    return m if trans == "N" else (m.T if trans == "T" else m.conj().T)


def hermitian_from(m, uplo):
    """The Hermitian matrix whose ``uplo`` triangle ``m`` stores (diagonal's imaginary part dropped)."""
    t = tri(m, uplo)
    d = np.diag(np.diag(t).real).astype(m.dtype)
    strict = t - np.diag(np.diag(t))
    return strict + strict.conj().T + d


def put_triangle(dst, src, uplo, diag=True):
    """``dst``'s ``uplo`` triangle (with or without the diagonal) := ``src``'s."""
    n = dst.shape[0]
    i, j = np.indices((n, n))
    keep = (i <= j) if uplo == "U" else (i >= j)
    if not diag:
        keep &= i != j
    dst[keep] = src[keep]


def solve_or_nan(t, b):
    """``inv(t) b``, or NaN where t is singular (the device's inf/NaN, without NumPy's error)."""
    try:
        return np.linalg.solve(t, b)
    except np.linalg.LinAlgError:
        return np.full_like(b, np.nan)


class Blas:
    """trsm, trmm, syrk, herk with rocblas's arguments on host buffers; ``calls`` records names."""

    def __init__(self):
        self.calls = []

    def trsm(self, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb):
        self.calls.append("trsm")
        ka = m if side == "L" else n
        t = op(tri(view(A, ka, ka, lda), uplo, diag == "U"), transA)
        b = view(B, m, n, ldb)
        b[...] = solve_or_nan(t, alpha * b) if side == "L" else solve_or_nan(t.T, alpha * b.T).T

    def trmm(self, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb):
        self.calls.append("trmm")
        ka = m if side == "L" else n
        t = op(tri(view(A, ka, ka, lda), uplo, diag == "U"), transA)
        b = view(B, m, n, ldb)
        b[...] = alpha * (t @ b if side == "L" else b @ t)

    def gemm(self, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
        self.calls.append("gemm")
        a = op(view(A, *((m, k) if transA == "N" else (k, m)), lda), transA)
        b = op(view(B, *((k, n) if transB == "N" else (n, k)), ldb), transB)
        c = view(C, m, n, ldc)
        assert not np.shares_memory(c, a) and not np.shares_memory(c, b)   # gemm cannot write its input
        c[...] = alpha * (a @ b) + (beta * c if beta != 0 else 0)

    def gemm_strided_batched(self, transA, transB, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C,
                             ldc, stride_c, batch_count):
        for b in range(batch_count):
            self.gemm(transA, transB, m, n, k, alpha, A[b * stride_a:], lda, B[b * stride_b:], ldb, beta,
                      C[b * stride_c:], ldc)
        self.calls[len(self.calls) - batch_count:] = ["gemm_strided_batched"]

    def _rank_k(self, herm, uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
        a = view(A, n, k, lda) if trans == "N" else op(view(A, k, n, lda), "C" if herm else "T")
        c = view(C, n, n, ldc)
        r = alpha * (a @ (a.conj().T if herm else a.T)) + beta * c
        if herm:
            r[np.diag_indices(n)] = r[np.diag_indices(n)].real
        put_triangle(c, r, uplo)

    def syrk(self, uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
        self.calls.append("syrk")
        assert A.dtype.kind != "c" and trans in "NT"
        self._rank_k(False, uplo, trans, n, k, alpha, A, lda, beta, C, ldc)

    def herk(self, uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
        self.calls.append("herk")
        assert A.dtype.kind == "c" and trans in "NC"
        self._rank_k(True, uplo, trans, n, k, alpha, A, lda, beta, C, ldc)


class Kernels:
    """The launch wrappers of ``rocarray.rocsolver._cholesky_kernels`` on host buffers, with a
    made-up shared-memory limit; ``calls`` records (name, order, batch)."""

    def __init__(self, limit=1 << 20, inverse_nb=None):
        from rocarray.rocsolver import _cholesky_kernels as real

        self.real, self.limit, self.calls, self.inverse_nb = real, limit, [], inverse_nb

    def inverse_leaf_order(self, dtype):
        return self.inverse_nb or self.real.inverse_leaf_order(dtype)

    def clear_info(self, info, batch):
        info[:batch] = 0

    def scratch(self, A, count):
        return np.full(count, np.nan, A.dtype)   # poisoned: the driver must write before it reads

    def zero(self, buf):
        buf[...] = 0

    def lacpy(self, m, n, src, lds, dst, ldd):
        self.calls.append(("lacpy", m, n))
        view(dst, m, n, ldd)[...] = view(src, m, n, lds)

    def potf2_inv(self, uplo, n, A, lda, W, ldw, info, j0=0):
        assert n <= self.inverse_leaf_order(A.dtype)
        tmp = np.zeros(1, np.int32)
        self.potf2(uplo, n, A, lda, 0, tmp, 1)
        self.calls[-1] = ("potf2_inv", n, 1)
        if tmp[0] and info[0] == 0:
            info[0] = j0 + tmp[0]
        t = tri(view(A, n, n, lda), uplo)
        s = t if uplo == "L" else t.conj().T
        view(W, n, n, ldw)[...] = np.tril(solve_or_nan(s, np.eye(n, dtype=A.dtype)))

    def fits(self, n, dtype, limit):
        return self.real.fits(n, dtype, limit)

    def potf2(self, uplo, n, A, lda, stride, info, batch, j0=0):
        self.calls.append(("potf2", n, batch))
        for b in range(batch):
            a = view(A[b * stride:], n, n, lda)
            s = tri(a if uplo == "L" else a.conj().T, "L").copy()  # lower normal form S
            fail = 0
            for j in range(n):
                d = s[j, j].real
                if not d > 0:
                    fail = j + 1
                    break
                s[j, j] = np.sqrt(d)
                s[j + 1:, j] /= s[j, j].real
                s[j + 1:, j + 1:] -= np.outer(s[j + 1:, j], s[j + 1:, j].conj())
            put_triangle(a, s if uplo == "L" else s.conj().T, uplo)
            if fail and info[b] == 0:
                info[b] = j0 + fail

    def potrs_small(self, uplo, n, nrhs, A, lda, stride_a, B, ldb, stride_b, batch):
        self.calls.append(("potrs_small", n, batch))
        for b in range(batch):
            t = tri(view(A[b * stride_a:], n, n, lda), uplo)
            full = t @ t.conj().T if uplo == "L" else t.conj().T @ t
            x = view(B[b * stride_b:], n, nrhs, ldb)
            x[...] = np.linalg.solve(full, x)

    def trti2(self, uplo, diag, n, A, lda):
        self.calls.append(("trti2", n, 1))
        a = view(A, n, n, lda)
        inv = solve_or_nan(tri(a, uplo, diag == "U"), np.eye(n, dtype=a.dtype))
        put_triangle(a, inv, uplo, diag=diag == "N")

    def lauu2(self, uplo, n, A, lda):
        self.calls.append(("lauu2", n, 1))
        a = view(A, n, n, lda)
        t = tri(a, uplo)
        put_triangle(a, t @ t.conj().T if uplo == "U" else t.conj().T @ t, uplo)

    def zero_diagonal(self, n, A, lda, stride, info, batch):
        self.calls.append(("zero_diag", n, batch))
        for b in range(batch):
            d = np.diag(view(A[b * stride:], n, n, lda))
            zeros = np.flatnonzero(d == 0)
            info[b] = zeros[0] + 1 if zeros.size else 0


class Block:
    """The launch wrapper of ``rocarray.rocsolver._cholesky_block`` on host buffers (the reference
    potf2 per matrix); ``calls`` (shared with a :class:`Kernels`' when given) records
    ("potrf_block", order, batch)."""

    def __init__(self, calls=None):
        from rocarray.rocsolver import _cholesky_block as real

        self.real, self.calls = real, [] if calls is None else calls

    def takes(self, n, dtype):
        return self.real.takes(n, dtype)

    def potrf(self, uplo, n, A, lda, stride, info, batch):
        assert self.takes(n, A.dtype)
        info[:batch] = 0
        Kernels().potf2(uplo, n, A, lda, stride, info, batch)
        self.calls.append(("potrf_block", n, batch))
