"""Self-checks and vendor-ratio benchmark cases of ``rocarray.sparse.linalg`` and
``rocarray.sparse.csgraph`` (``python -m rocarray``).

Self-checks solve small fresh random systems with every Krylov solver (dense device matrices and
a sparse 2-D Laplacian), compare iteration counts, info codes and solutions with SciPy's, compare
eigsh/svds with SciPy's eigenvalues, and connected components and breadth-first order with
SciPy's; they raise ``AssertionError`` on a mismatch. Benchmark cases: ``cg`` on the 5-point 2-D
Laplacian 2048^2 in float64 for exactly 500 iterations (``rtol=0``, ``maxiter=500``) against
``cupyx.scipy.sparse.linalg.cg`` with the same arguments, and ``eigsh`` (k=6, ``tol=1e-6``) on the
Laplacian 512^2 against cupyx's ``eigsh``. Bytes of one cg iteration: the SpMV (values,
column indices, row pointers, the gathered and the written vector, about 80 bytes per row) plus
the vector work (48 bytes per row in the fused update, 24 in the direction, 16 in ``p . q``).
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsparse"


def _laplacian(k, dtype=numpy.float64):
    import scipy.sparse as sp

    t = sp.diags_array([-numpy.ones(k - 1), 2 * numpy.ones(k), -numpy.ones(k - 1)], offsets=[-1, 0, 1]).tocsr()
    eye = sp.eye_array(k, format="csr")
    L = (sp.kron(eye, t, format="csr") + sp.kron(t, eye, format="csr")).tocsr().astype(dtype)
    L.eliminate_zeros()
    return L


def _close(got, want, rtol, name):
    got = backend.cupy().asnumpy(got) if hasattr(got, "get") else numpy.asarray(got)
    numpy.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1.0, float(numpy.abs(want).max())),
                                  err_msg=name)


@harness.self_check(_LIB, "krylov_solvers")
def check_krylov(rng):
    import scipy.sparse.linalg as sla

    import rocarray.sparse as rs
    import rocarray.sparse.linalg as ral

    cupy = backend.cupy()
    L = _laplacian(24)
    n = L.shape[0]
    b = rng.standard_normal(n)
    A = rs.csr_array(L)
    for name, kw in (("cg", {}), ("bicgstab", {}), ("gmres", {"restart": 30}), ("minres", {})):
        ours, theirs = [], []
        x, info = getattr(ral, name)(A, cupy.asarray(b), rtol=1e-10, callback=lambda v: ours.append(1),
                                     **({"callback_type": "x"} if name == "gmres" else {}), **kw)
        y, jnfo = getattr(sla, name)(L, b, rtol=1e-10, callback=lambda v: theirs.append(1),
                                     **({"callback_type": "x"} if name == "gmres" else {}), **kw)
        # the stopping test compares a residual norm with rtol * ||b||: summation order may move
        # the last iteration by one either way; BiCGSTAB's residual is not monotone, so rounding
        # moves the iteration where it first drops below the bound by several
        slack = len(theirs) // (8 if name == "bicgstab" else 20)
        if info != jnfo or abs(len(ours) - len(theirs)) > max(1, slack):
            raise AssertionError(f"{name}: info {info}/{jnfo}, iterations {len(ours)}/{len(theirs)} (ours/SciPy)")
        _close(x, y, 1e-7, name)
    D, c = rng.standard_normal((70, 40)), rng.standard_normal(70)
    ours = ral.lsqr(cupy.asarray(D), cupy.asarray(c), atol=1e-12, btol=1e-12)
    theirs = sla.lsqr(D, c, atol=1e-12, btol=1e-12)
    # the same stopping reason; the iteration count may move by one either way (summation order)
    if ours[1] != theirs[1] or abs(ours[2] - theirs[2]) > 1:
        raise AssertionError(f"lsqr: istop, itn {ours[1:3]}, SciPy {theirs[1:3]}")
    _close(ours[0], theirs[0], 1e-8, "lsqr")


@harness.self_check(_LIB, "eigsh_svds")
def check_eigen(rng):
    import scipy.sparse.linalg as sla

    import rocarray.sparse as rs
    import rocarray.sparse.linalg as ral

    L = _laplacian(20)
    w, _ = ral.eigsh(rs.csr_array(L), k=6, which="LA")
    _close(w, numpy.sort(sla.eigsh(L, k=6, which="LA")[0]), 1e-9, "eigsh")
    D = rng.standard_normal((60, 30))
    s = ral.svds(backend.cupy().asarray(D), k=4, return_singular_vectors=False)
    _close(s, numpy.sort(numpy.linalg.svd(D, compute_uv=False)[:4]), 1e-9, "svds")


@harness.self_check(_LIB, "csgraph")
def check_csgraph(rng):
    import scipy.sparse as sp
    import scipy.sparse.csgraph as scg

    import rocarray.sparse as rs
    import rocarray.sparse.csgraph as rcg

    S = sp.random_array((3000, 3000), density=4e-4, random_state=numpy.random.RandomState(int(rng.integers(1 << 30))),
                        format="csr")
    G = rs.csr_array(S)
    for directed, connection in ((True, "weak"), (True, "strong"), (False, "weak")):
        count, labels = rcg.connected_components(G, directed=directed, connection=connection)
        want, wlabels = scg.connected_components(S, directed=directed, connection=connection)
        pairs = set(zip(labels.get().tolist(), wlabels.tolist()))
        if count != want or len(pairs) != want:
            raise AssertionError(f"connected_components {connection}: {count} components, SciPy {want}")
    order, pred = rcg.breadth_first_order(G, 0, directed=False)
    worder, wpred = scg.breadth_first_order(S, 0, directed=False)
    if not (numpy.array_equal(order.get(), worder) and numpy.array_equal(pred.get(), wpred)):
        raise AssertionError("breadth_first_order differs from SciPy's")


def _cg_case():
    k, iterations = 2048, 500

    def setup():
        import cupyx.scipy.sparse as csp

        import rocarray.sparse as rs

        L = _laplacian(k)
        b = backend.cupy().asarray(numpy.random.default_rng(0).standard_normal(L.shape[0]))
        return rs.csr_array(L), csp.csr_matrix(L), b

    def ours(A, _, b):
        import rocarray.sparse.linalg as ral

        ral.cg(A, b, rtol=0.0, maxiter=iterations)

    def vendor(_, A, b):
        import cupyx.scipy.sparse.linalg as cla

        cla.cg(A, b, rtol=0.0, maxiter=iterations)

    n = k * k
    nnz = 5 * n - 4 * k
    spmv = nnz * (8 + 4) + (n + 1) * 4 + 2 * n * 8
    per_iteration = spmv + 16 * n + 48 * n + 24 * n
    harness.bench_case(BenchCase(name=f"{_LIB}.cg_laplacian_{k}x{k}_float64_{iterations}it", library=_LIB,
                                 setup=setup, rocarray=ours, vendor=vendor, bytes_moved=iterations * per_iteration,
                                 flops=iterations * (2 * nnz + 10 * n)))


def _eigsh_case():
    k = 256

    def setup():
        import cupyx.scipy.sparse as csp

        import rocarray.sparse as rs

        L = _laplacian(k)
        return rs.csr_array(L), csp.csr_matrix(L)

    def ours(A, _):
        import rocarray.sparse.linalg as ral

        ral.eigsh(A, k=6, tol=1e-6, return_eigenvectors=False)

    def vendor(_, A):
        import cupyx.scipy.sparse.linalg as cla

        cla.eigsh(A, k=6, tol=1e-6, return_eigenvectors=False)

    harness.bench_case(BenchCase(name=f"{_LIB}.eigsh_k6_laplacian_{k}x{k}_float64", library=_LIB, setup=setup,
                                 rocarray=ours, vendor=vendor, memory_bound=False))


_cg_case()
_eigsh_case()
