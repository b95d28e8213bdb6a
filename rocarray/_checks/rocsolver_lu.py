"""Self-checks and vendor-ratio benchmark cases of rocsolver's LU (``python -m rocarray``).

The self-check solves fresh random systems with ``ra.linalg.solve`` (one matrix on the one-block
path, stacks of order 100 on the panel kernel and on the register-tile kernel behind its way back,
one on the recursive blocked path, a batch of 24 x 24 on the warp-per-matrix path) in all four
dtypes, stacks of order up to 128 on the register-tile kernel with its one-barrier step, its
two-barrier step and its 512-thread layout (``WIDE``) (the same X and slogdet), and one of order
2100 in float64 and complex64 whose first panels are tall enough for the device-wide panel
factorization, and checks the backward
error ``||A x - b|| / (||A|| ||x|| n eps)``, and that a singular matrix raises ``LinAlgError``;
one of order 300 runs the panel kernels behind
``getf2_rows``'s way back (``getf2_grid`` and the one-block ``getf2``) and the cluster panel
(``getf2_cluster``, on by default, with its look-ahead step too), and 300 row interchanges
applied by ``laswp`` and as one composed permutation must agree bit for bit.
Benchmark cases time ``ra.linalg.solve`` against ``cupy.linalg.solve`` (cuSOLVER getrf/getrs) on
the same arrays: one 8192^2 system in float64 and float32, and the batched cases of the issue,
10^5 systems of 32 x 32 in float32 and 10^4 of 128 x 128 in float64 (right-hand sides as
``(batch, n, 1)``, which both libraries read as one column per system).
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsolver"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _random(shape, dtype, rng=None):
    dtype = numpy.dtype(dtype)
    if rng is not None:
        x = rng.standard_normal(shape)
        if dtype.kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        return backend.cupy().asarray(x.astype(dtype))
    cupy = backend.cupy()
    real = numpy.dtype(dtype.char.lower())
    x = cupy.random.standard_normal(shape, dtype=real)
    if dtype.kind == "c":
        x = x + 1j * cupy.random.standard_normal(shape, dtype=real)
    return x.astype(dtype)


def _backward_error(a, b, x):
    """The largest ``||A x - b|| / (||A|| ||x|| n eps)`` over a (stack of) solve(s), in float64 /
    complex128 on the host (Frobenius norms of each system's matrices)."""
    n = a.shape[-1]
    eps = numpy.finfo(a.dtype).eps
    ah, bh, xh = (backend.cupy().asnumpy(v).astype(numpy.complex128) for v in (a, b, x))
    if bh.ndim == ah.ndim - 1:
        bh, xh = bh[..., None], xh[..., None]
    axes = (-2, -1)
    return float((numpy.linalg.norm(ah @ xh - bh, axis=axes)
                  / (numpy.linalg.norm(ah, axis=axes) * numpy.linalg.norm(xh, axis=axes) * n * eps)).max())


def _solve_300(dtype, rng, what):
    """Solve a fresh order-300 system of ``dtype`` through ``ra.linalg.solve`` under whatever
    settings the caller made; raise unless its backward error is below 8 n eps."""
    import rocarray.linalg as la

    a, b = _random((300, 300), dtype, rng), _random((300,), dtype, rng)
    err = _backward_error(a, b, la.solve(a, b))
    if not err < 8:
        raise AssertionError(f"solve 300 {dtype}, {what}: backward error {err:.2f} n eps")


def _check_outer_blocks(rng):
    """The outer-block LU (small blocks, so that an order of 300 has several) with its inverted
    diagonal blocks, and getrs of one right-hand side through trsv, whichever the defaults are."""
    from rocarray.rocsolver import _lu_blocked

    saved = _lu_blocked.OUTER, _lu_blocked.GETRS_TRSV_RHS
    try:
        _lu_blocked.OUTER, _lu_blocked.GETRS_TRSV_RHS = 128, 1
        for dtype in ("float64", "complex64"):
            _solve_300(dtype, rng, "outer blocks")
    finally:
        _lu_blocked.OUTER, _lu_blocked.GETRS_TRSV_RHS = saved


def _check_other_panels(rng):
    """The panel kernels the defaults may not reach at this check's orders: ``getf2_rows`` (off by
    default, ``ROWS_KERNEL``; it takes every real panel when on), with the device-wide
    threshold lowered, ``getf2_grid`` for the first panels of an order of 300 and the one-block
    ``getf2`` for the shorter ones (the way back of ``CLUSTER_PANEL``), and ``getf2_cluster`` for
    the first panels (of at least CLUSTER_PANEL_ROWS rows) where the device has clusters, real
    and complex, on 8 blocks and (blocks of at most 32 rows) on 16 where the driver finds room,
    with its plain and its look-ahead step."""
    from rocarray.rocsolver import _lu_kernels

    saved = (_lu_kernels.ROWS_KERNEL, _lu_kernels.GRID_PANEL_ROWS, _lu_kernels.CLUSTER_PANEL,
             _lu_kernels.CLUSTER_BLOCK, _lu_kernels.CLUSTER_LOOKAHEAD)
    try:
        for rows_kernel, what in ((True, "getf2_rows panels"), (False, "getf2_grid and getf2 panels")):
            _lu_kernels.ROWS_KERNEL, _lu_kernels.GRID_PANEL_ROWS = rows_kernel, 256
            _lu_kernels.CLUSTER_PANEL = False
            _solve_300("float64", rng, what)
        _lu_kernels.ROWS_KERNEL, _lu_kernels.CLUSTER_PANEL = False, True
        for look in (False, True):
            _lu_kernels.CLUSTER_LOOKAHEAD, _lu_kernels.CLUSTER_BLOCK = look, saved[3]
            step = " (look-ahead step)" if look else ""
            for dtype in ("float64", "complex128"):
                _solve_300(dtype, rng, "getf2_cluster panels" + step)
            # blocks of at most 32 rows: the first panels (over 256 rows) take the 16-block cluster
            _lu_kernels.CLUSTER_BLOCK = 32
            _solve_300("float64", rng, "getf2_cluster panels of 16 blocks" + step)
    finally:
        (_lu_kernels.ROWS_KERNEL, _lu_kernels.GRID_PANEL_ROWS, _lu_kernels.CLUSTER_PANEL,
         _lu_kernels.CLUSTER_BLOCK, _lu_kernels.CLUSTER_LOOKAHEAD) = saved


def _check_gesv_warp_way_back(rng):
    """Small batched solves through ``gesv_warp``, the way back of the default ``gesv_warp_flat``
    (``GESV_WARP_FLAT``): the same backward-error bound, every dtype."""
    import rocarray.linalg as la
    from rocarray.rocsolver import _lu_kernels

    saved = _lu_kernels.GESV_WARP_FLAT
    try:
        _lu_kernels.GESV_WARP_FLAT = False
        for dtype in _DTYPES:
            a, b = _random((50, 24, 24), dtype, rng), _random((50, 24, 2), dtype, rng)
            err = _backward_error(a, b, la.solve(a, b))
            if not err < 8:
                raise AssertionError(f"solve (gesv_warp) (50, 24, 24) {dtype}: backward error {err:.2f} n eps")
    finally:
        _lu_kernels.GESV_WARP_FLAT = saved


def _check_getrf_block_one_barrier(rng):
    """Stacks on the register-tile kernel (every dtype at its largest tile, the bench's float64
    order 128; the panel and wide kernels off) solved, and factored for slogdet, with the one-barrier step
    (``ONE_BARRIER``, ``getrf_block``) and the two-barrier step (``getrf_block_2sync``): X and
    slogdet bit for bit (real dtypes; complex to rounding), and the backward-error bound."""
    import rocarray.linalg as la
    from rocarray.rocsolver import _lu_block

    cupy = backend.cupy()
    saved = _lu_block.ONE_BARRIER, _lu_block.PANEL, _lu_block.WIDE
    try:
        _lu_block.PANEL = _lu_block.WIDE = False
        for dtype, n in (("float64", 128), ("float32", 128), ("complex64", 120), ("complex128", 96)):
            a, b = _random((6, n, n), dtype, rng), _random((6, n, 1), dtype, rng)
            x, logdet = {}, {}
            for one in (True, False):
                _lu_block.ONE_BARRIER = one
                x[one] = la.solve(a, b)
                logdet[one] = [cupy.asnumpy(v) for v in la.slogdet(a)]
            err = _backward_error(a, b, x[True])
            if not err < 8:
                raise AssertionError(f"solve (getrf_block) (6, {n}, {n}) {dtype}: backward error {err:.2f} n eps")
            # bit for bit in real arithmetic; complex products may be contracted differently
            eps = numpy.finfo(numpy.dtype(dtype)).eps
            same = ((lambda u, v: numpy.array_equal(u, v)) if numpy.dtype(dtype).kind == "f"
                    else (lambda u, v: numpy.allclose(u, v, rtol=1e3 * eps, atol=1e3 * eps * numpy.abs(v).max())))
            if not same(cupy.asnumpy(x[True]), cupy.asnumpy(x[False])):
                raise AssertionError(f"solve (getrf_block) (6, {n}, {n}) {dtype}: the one-barrier step differs "
                                     "from getrf_block_2sync")
            if not all(same(u, v) for u, v in zip(logdet[True], logdet[False])):
                raise AssertionError(f"slogdet (getrf_block) (6, {n}, {n}) {dtype}: the one-barrier step "
                                     "differs from getrf_block_2sync")
    finally:
        _lu_block.ONE_BARRIER, _lu_block.PANEL, _lu_block.WIDE = saved


def _check_composed_laswp(rng):
    """300 interchanges (past one 32-interchange chunk) with a gap of columns, by the chunked
    laswp and as one composed permutation (laswp_plan, laswp_gather): the same rows, bit for bit."""
    from rocarray.rocsolver import _lu_kernels

    cupy = backend.cupy()
    m, n, k1, k2, gap = 700, 90, 40, 340, (30, 20)
    piv = cupy.asarray(rng.integers(k1 + 1, m + 1, size=k2).astype(numpy.int32))
    a = _random((n, m), "float64", rng).reshape(-1)    # column-major m x n, lda m
    chunked, composed = a.copy(), a.copy()
    _lu_kernels.laswp(n - gap[1], chunked, m, 0, k1, k2, piv, 0, False, 1, gap=gap)
    _lu_kernels.laswp_composed(n - gap[1], composed, m, k1, k2, piv, gap=gap)
    if not numpy.array_equal(cupy.asnumpy(chunked), cupy.asnumpy(composed)):
        raise AssertionError("laswp_composed differs from laswp (300 interchanges, a gap of columns)")


def _check_wide_kernel(rng):
    """Stacks of orders 128 and 97 through the 512-thread register tile (``getrf_block_wide``, its
    switch ``WIDE`` on, the factorization too (``WIDE_FACTOR``), with its plain step, its look-ahead
    step, its redux.sync search (``WIDE_REDUX``) and its flow step (``WIDE_FLOW``)), through the two
    crews of ``getrf_block_split`` (``SPLIT``, with and without its windowed step,
    ``SPLIT_WINDOW``), the solves through ``getrf_block_compact`` (``COMPACT``, float32 and
    float64, 4 blocks for the 6 systems, with and without the window) and through ``getrf_block``: the
    backward-error bound, and the same X and slogdet, bit for bit in real dtypes (complex to
    rounding)."""
    import rocarray.linalg as la
    from rocarray.rocsolver import _lu_block

    cupy = backend.cupy()
    switches = ("WIDE", "WIDE_LOOKAHEAD", "WIDE_REDUX", "WIDE_FLOW", "PANEL", "WIDE_FACTOR", "SPLIT", "SPLIT_WINDOW",
                "COMPACT", "COMPACT_DTYPES", "COMPACT_MAX_GRID", "COMPACT_ORDER", "COMPACT_BATCH_PER_SM")
    saved = tuple(getattr(_lu_block, name) for name in switches)
    steps = {(True, False, False, False): "getrf_block_wide",
             (True, True, False, False): "getrf_block_wide (look-ahead)",
             (True, False, True, False): "getrf_block_wide (redux search)",
             (True, False, False, True): "getrf_block_wide (flow step)",
             (True, False, True, True): "getrf_block_wide (flow step, redux search)",
             "split": "getrf_block_split",
             "split window": "getrf_block_split (windowed step)",
             "compact": "getrf_block_compact",
             "compact window": "getrf_block_compact (windowed step)"}
    try:
        _lu_block.PANEL, _lu_block.WIDE_FACTOR = False, True
        _lu_block.COMPACT_DTYPES, _lu_block.COMPACT_MAX_GRID = _lu_block.SPLIT_DTYPES, 4
        _lu_block.COMPACT_ORDER, _lu_block.COMPACT_BATCH_PER_SM = _lu_block.SPLIT_ORDER, 0
        for dtype, n in (("float64", 128), ("float32", 97), ("complex64", 128)):
            a, b = _random((6, n, n), dtype, rng), _random((6, n, 2), dtype, rng)
            x, logdet = {}, {}
            for setting in ((False, False, False, False),) + tuple(steps):
                split = isinstance(setting, str)
                _lu_block.SPLIT, _lu_block.SPLIT_WINDOW = split, split and setting.endswith("window")
                _lu_block.COMPACT = split and setting.startswith("compact")
                _lu_block.WIDE, _lu_block.WIDE_LOOKAHEAD, _lu_block.WIDE_REDUX, _lu_block.WIDE_FLOW = (
                    (False,) * 4 if split else setting)
                x[setting] = la.solve(a, b)
                logdet[setting] = [cupy.asnumpy(v) for v in la.slogdet(a)]
            eps = numpy.finfo(numpy.dtype(dtype)).eps
            same = ((lambda u, v: numpy.array_equal(u, v)) if numpy.dtype(dtype).kind == "f"
                    else (lambda u, v: numpy.allclose(u, v, rtol=1e3 * eps, atol=1e3 * eps * numpy.abs(v).max())))
            base = (False, False, False, False)
            for setting, step in steps.items():
                err = _backward_error(a, b, x[setting])
                if not err < 8:
                    raise AssertionError(f"solve {step} (6, {n}, {n}) {dtype}: backward error {err:.2f} n eps")
                if not same(cupy.asnumpy(x[setting]), cupy.asnumpy(x[base])):
                    raise AssertionError(f"solve (6, {n}, {n}) {dtype}: {step} differs from getrf_block")
                if not all(same(u, v) for u, v in zip(logdet[setting], logdet[base])):
                    raise AssertionError(f"slogdet (6, {n}, {n}) {dtype}: {step} differs from getrf_block")
    finally:
        for name, value in zip(switches, saved):
            setattr(_lu_block, name, value)


def _check_mid_size_kernels(rng):
    """Stacks of order 100 through the panel kernel (``getrf_panel``: solve, and slogdet's
    factorization) and through the register-tile kernel behind its way back (``PANEL``): the same
    backward-error bound, every dtype; the two solutions agree to rounding. Then the wide register
    tile (:func:`_check_wide_kernel`)."""
    import rocarray.linalg as la
    from rocarray.rocsolver import _lu_block

    _check_wide_kernel(rng)
    cupy = backend.cupy()
    saved = _lu_block.PANEL
    try:
        for dtype in _DTYPES:
            a, b = _random((6, 100, 100), dtype, rng), _random((6, 100, 2), dtype, rng)
            got = {}
            for panel in (True, False):
                _lu_block.PANEL = panel
                got[panel] = x = la.solve(a, b)
                err = _backward_error(a, b, x)
                if not err < 8:
                    raise AssertionError(f"solve (6, 100, 100) {dtype} panel={panel}: backward error {err:.2f} n eps")
                logdet = cupy.asnumpy(la.slogdet(a)[1])
                want = numpy.linalg.slogdet(cupy.asnumpy(a).astype(numpy.complex128))[1]
                if not numpy.allclose(logdet, want, rtol=1e-4 if dtype in ("float32", "complex64") else 1e-10):
                    raise AssertionError(f"slogdet (6, 100, 100) {dtype} panel={panel}: {logdet} against {want}")
            diff = float(cupy.abs(got[True] - got[False]).max() / cupy.abs(got[False]).max())
            if not diff < 1e3 * numpy.finfo(numpy.dtype(dtype)).eps:
                raise AssertionError(f"solve (6, 100, 100) {dtype}: the two kernels differ by {diff}")
    finally:
        _lu_block.PANEL = saved


@harness.self_check(_LIB, "lu_solve")
def check_solve(rng):
    import rocarray.linalg as la

    _check_other_panels(rng)
    _check_mid_size_kernels(rng)
    _check_composed_laswp(rng)
    _check_gesv_warp_way_back(rng)
    _check_getrf_block_one_barrier(rng)

    for dtype in _DTYPES:
        tall = ((2100, 2100),) if dtype in ("float64", "complex64") else ()
        for shape in ((37, 37), (300, 300), (50, 24, 24)) + tall:
            a = _random(shape, dtype, rng)
            b = _random(shape[:-1] + (2,), dtype, rng)
            err = _backward_error(a, b, la.solve(a, b))
            if not err < 8:
                raise AssertionError(f"solve {shape} {dtype}: backward error {err:.2f} n eps")
    _check_outer_blocks(rng)
    a = _random((40, 40), "float64", rng)
    a[:, 7] = 0
    try:
        la.solve(a, _random((40,), "float64", rng))
    except numpy.linalg.LinAlgError:
        return
    raise AssertionError("solve of a singular matrix did not raise LinAlgError")


def _solve_case(name, batch, n, dtype):
    def setup():
        shape = (batch, n, n) if batch else (n, n)
        return _random(shape, dtype), _random(shape[:-1] + (1,), dtype)

    def ours(a, b):
        import rocarray.linalg as la

        la.solve(a, b)

    def vendor(a, b):
        backend.cupy().linalg.solve(a, b)

    count = max(batch, 1)
    flops = count * (2 * n ** 3 // 3 + 2 * n * n)
    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours, vendor=vendor,
                                 flops=flops, memory_bound=False))


def _register_benchmarks():
    _solve_case("solve_8192_float64", 0, 8192, "float64")
    _solve_case("solve_8192_float32", 0, 8192, "float32")
    _solve_case("solve_batched_100000x32_float32", 100_000, 32, "float32")
    _solve_case("solve_batched_10000x128_float64", 10_000, 128, "float64")


_register_benchmarks()
