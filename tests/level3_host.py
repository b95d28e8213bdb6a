"""Host-side helpers shared by the level-3 and batched gemm tests: column-major device buffers
with their host twins, the scalars as the kernels receive them, op(), and gemm runs checked
against a host reference (one product or a batch)."""

import numpy as np

from conftest import assert_close, random_array, to_device, to_host, wide

import rocarray.rocblas as rocblas
from rocarray.rocblas import _arguments
from rocarray.rocblas._gemm import tiles as _tiles

#: The dtypes of the SIMT and float64 matrix kernels.
GEMM_DTYPES = ["float32", "float64", "complex64", "complex128"]


class Mat:
    """A column-major rows x cols matrix in a 1-D device buffer with leading dimension ld."""

    def __init__(self, rng, rows, cols, ld, dtype, fill=None):
        size = (max(cols, 1) - 1) * ld + max(rows, 1) + 3
        self.host = random_array(rng, size, dtype) if fill is None else np.full(size, fill, dtype)
        self.rows, self.cols, self.ld = rows, cols, ld
        self.pos = np.arange(rows)[:, None] + np.arange(cols)[None, :] * ld
        self.dev = to_device(self.host)

    def matrix(self):
        return wide(self.host[self.pos]) if self.pos.size else np.zeros((self.rows, self.cols))

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev), self.host)


def scalar(dtype, value, imag):
    """``value`` as a test scalar: complex with ``imag`` for complex dtypes (0 and 1 stay real)."""
    return complex(value, imag) if np.dtype(dtype).kind == "c" and value not in (0, 1) else value


def as_passed(value, dtype):
    """A host scalar rounded to the kernel's precision, widened."""
    v = _arguments.scalar_arg(value, dtype)
    return complex(v) if np.iscomplexobj(v) else float(v)


def op(a, trans):
    """op() of a 2-D matrix: 'N', 'T' or 'C'."""
    return a if trans == "N" else (a.T if trans == "T" else a.conj().T)


class SameDevice:
    """Stand-in for ``rocarray._core.launch.on_device`` where there is no device: switches nothing."""

    def __init__(self, device_id):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def run_gemm(rng, dtype, trans, m, n, k, extra=(0, 0, 0), alpha=None, beta=None, poison=False):
    """One gemm on fresh random buffers, checked against the host reference."""
    ta, tb = trans
    alpha = scalar(dtype, 1.5, 0.25) if alpha is None else alpha
    beta = scalar(dtype, -0.5, 0.75) if beta is None else beta
    ar, ac = (m, k) if ta == "N" else (k, m)
    br, bc = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = max(1, ar) + extra[0], max(1, br) + extra[1], max(1, m) + extra[2]
    a = Mat(rng, ar, ac, lda, dtype)
    b = Mat(rng, br, bc, ldb, dtype)
    c = Mat(rng, m, n, ldc, dtype, fill=np.nan if poison else None)
    assert rocblas.gemm(ta, tb, m, n, k, alpha, a.dev, lda, b.dev, ldb, beta, c.dev, ldc) is None
    a.unchanged()
    b.unchanged()
    got = to_host(c.dev)
    rest = np.ones(got.shape, bool)
    rest[c.pos] = False
    np.testing.assert_array_equal(got[rest], c.host[rest], err_msg="elements outside C changed")
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    if m == 0 or n == 0 or ((al == 0 or k == 0) and be == 1):
        c.unchanged()
        return
    cm = c.matrix()
    want = np.zeros((m, n), cm.dtype if be != 0 else np.float64)
    scale = np.zeros((m, n))
    if al != 0 and k > 0:
        oa, ob = op(a.matrix(), ta), op(b.matrix(), tb)
        want = al * (oa @ ob)
        scale = abs(al) * (np.abs(oa) @ np.abs(ob))
    if be != 0:
        want = want + be * cm
        scale = scale + abs(be) * np.abs(cm)
    assert_close(got[c.pos], want, dtype, max(k, 1), atol_scale=float(np.max(scale)))


def run_gemm_bias_activation(rng, dtype, m, n, k, activation):
    """C := act(0.5 A B - C + bias) on fresh column-major buffers, checked against the host."""
    a, b = random_array(rng, m * k, dtype), random_array(rng, k * n, dtype)
    c, bias = random_array(rng, m * n, dtype), random_array(rng, m, dtype)
    dc = to_device(c)
    rocblas.gemm("N", "N", m, n, k, 0.5, to_device(a), m, to_device(b), k, -1.0, dc, m,
                 bias=to_device(bias), activation=activation)
    am, bm, cm = wide(a).reshape(k, m).T, wide(b).reshape(n, k).T, wide(c).reshape(n, m).T
    pre = 0.5 * am @ bm - cm + wide(bias)[:, None]
    scale = float(np.max(0.5 * np.abs(am) @ np.abs(bm) + np.abs(cm) + np.abs(wide(bias))[:, None]))
    # every activation here has a derivative of at most about 1.13 in magnitude
    assert_close(wide(to_host(dc)).reshape(n, m).T, activation_reference(activation, pre), dtype, k,
                 atol_scale=1.2 * scale)


def activation_reference(name, x):
    from scipy.special import erf

    return {"relu": lambda v: np.maximum(v, 0), "gelu": lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2))),
            "silu": lambda v: v / (1 + np.exp(-v)), "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
            "tanh": np.tanh, None: lambda v: v}[name](x)


def every_choice():
    """(dtype, tile choice) for every tile gemm can launch on the current device, plain and split."""
    sms, mma = _tiles.device_facts(to_device(np.zeros(1)).data.device_id)
    for dtype in GEMM_DTYPES:
        for tile in _tiles.tiles_for(dtype, mma):
            for splits in (1, 3):
                yield dtype, _tiles.TileChoice(tile, splits)


class Stack:
    """``batch`` column-major rows x cols matrices, ``stride`` apart, in one 1-D device buffer."""

    def __init__(self, rng, rows, cols, ld, stride, batch, dtype, fill=None):
        one = (max(cols, 1) - 1) * ld + max(rows, 1)
        size = max(batch - 1, 0) * stride + one + 3
        self.host = random_array(rng, size, dtype) if fill is None else np.full(size, fill, dtype)
        self.rows, self.cols, self.ld, self.stride, self.batch = rows, cols, ld, stride, batch
        self.pos = (np.arange(batch)[:, None, None] * stride + np.arange(rows)[None, :, None]
                    + np.arange(cols)[None, None, :] * ld)
        self.dev = to_device(self.host)

    def matrices(self):
        """The (batch, rows, cols) stack in the reference precision."""
        return wide(self.host[self.pos])

    def pointers(self, order):
        """Device array of the matrices' addresses, ``order[b]``-th matrix at entry b."""
        base = self.dev.data.ptr
        size = self.host.dtype.itemsize
        return to_device(np.array([base + int(b) * self.stride * size for b in order], dtype=np.uint64))

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev), self.host)


def stack_op(a, trans):
    """op() of every matrix of a (batch, rows, cols) stack."""
    if trans == "N":
        return a
    t = np.swapaxes(a, 1, 2)
    return t.conj() if trans == "C" else t


def run_batched(rng, dtype, trans, m, n, k, batch, extra=(0, 0, 0), alpha=None, beta=None, poison=False,
                stride_a=None, stride_b=None, gap=2, pointers=False):
    """One batched gemm on fresh random buffers, checked against the host reference.

    ``stride_a``/``stride_b`` default to the matrix size plus 1 and 2 elements (0 broadcasts);
    C matrices are ``ldc * n + gap`` apart. ``pointers`` runs gemm_batched on pointer arrays
    into the same buffers, matrices in a shuffled order.
    """
    ta, tb = trans
    alpha = scalar(dtype, 1.5, 0.25) if alpha is None else alpha
    beta = scalar(dtype, -0.5, 0.75) if beta is None else beta
    ar, ac = (m, k) if ta == "N" else (k, m)
    br, bc = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = max(1, ar) + extra[0], max(1, br) + extra[1], max(1, m) + extra[2]
    sa = (max(ac, 1) - 1) * lda + max(ar, 1) + 1 if stride_a is None else stride_a
    sb = (max(bc, 1) - 1) * ldb + max(br, 1) + 2 if stride_b is None else stride_b
    sc = ldc * n + gap
    a = Stack(rng, ar, ac, lda, sa, batch, dtype)
    b = Stack(rng, br, bc, ldb, sb, batch, dtype)
    c = Stack(rng, m, n, ldc, sc, batch, dtype, fill=np.nan if poison else None)
    if pointers:
        order = rng.permutation(batch)
        pa, pb, pc = a.pointers(order), b.pointers(order), c.pointers(order)
        assert rocblas.gemm_batched(ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, ldc, batch,
                                    dtype=dtype) is None
    else:
        assert rocblas.gemm_strided_batched(ta, tb, m, n, k, alpha, a.dev, lda, sa, b.dev, ldb, sb, beta,
                                            c.dev, ldc, sc, batch) is None
    a.unchanged()
    b.unchanged()
    got = to_host(c.dev)
    rest = np.ones(got.shape, bool)
    rest[c.pos] = False
    np.testing.assert_array_equal(got[rest], c.host[rest], err_msg="elements outside the C matrices changed")
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    if m == 0 or n == 0 or batch == 0 or ((al == 0 or k == 0) and be == 1):
        c.unchanged()
        return
    cm = c.matrices()
    want = np.zeros((batch, m, n), cm.dtype if be != 0 else np.float64)
    scale = np.zeros((batch, m, n))
    if al != 0 and k > 0:
        oa, ob = stack_op(a.matrices(), ta), stack_op(b.matrices(), tb)
        want = al * np.matmul(oa, ob)
        scale = abs(al) * np.matmul(np.abs(oa), np.abs(ob))
    if be != 0:
        want = want + be * cm
        scale = scale + abs(be) * np.abs(cm)
    assert_close(got[c.pos], want, dtype, max(k, 1), atol_scale=float(np.max(scale)))
