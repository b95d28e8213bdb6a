#!/usr/bin/env python3
"""Small single-case workloads for a sanitizer tool whose run over a whole self-check takes too long.

    compute-sanitizer --tool racecheck --racecheck-report hazard python3 scripts/race_cases.py CASE
    python3 scripts/race_cases.py --list

racecheck instruments every shared-memory access, so the LU and sparse-product self-checks (orders
up to 2100 and eight dtype/index combinations) run for many minutes under it. Each case here
launches one kernel family's shapes once on a small problem, checks the answer, and prints the
kernels it launched (the launch layer's observer), so a clean sanitizer log can be tied to the
kernels it covered. ``lugrid*`` lower the device-wide LU panel's row threshold so that an order of
300 reaches ``getf2_grid`` (``lurows*``: ``getf2_rows``, a thread per panel row); ``luouter*`` take
the outer-block LU with its inverted diagonal blocks; ``lub128`` (float64) and ``lub100c``
(complex64) solve and factor (slogdet) stacks of three through the register-tile
``getrf_block`` with its one-barrier step (``ONE_BARRIER`` switched on; its double-buffered column,
pivot and reciprocal), ``lub128w`` the same float64 stack through the two-barrier step
(``getrf_block_2sync``), ``lub128x`` through the 512-thread layout (``getrf_block_wide_redux``,
``WIDE`` switched on with its default step: a warp per thread column, the same double-buffered
column and pivot) and
``lub128xl`` through its look-ahead step (``WIDE_LOOKAHEAD`` too: the next column's pivot
published into the other buffer before the barrier that ends the step);
``attn_wgmma*`` run the sm_90 ``wgmma`` attention forward (head dimension 64 or 128), causal and not,
on lengths that are not multiples of its tiles; ``attn_wgmma_units`` with 600 units of 128 queries,
so that each block of the persistent grid computes several. ``sytrd150``/``sytrd150z`` reduce an
order-150 matrix (float64 / complex128) through the warp-tile panel kernels (``sytrd_symv_stage``
or ``sytrd_symv_warp``, ``sytrd_sum_rows``) and then through the block-tile ones;
``sytrd150s``/``sytrd150sz`` the same through the staged symv alone, its blocks looping over
several tiles a warp (two blocks a column). ``gesvw`` solves small stacks through
``gesv_warp_flat`` (order 32 in float32, one matrix a warp; order 8 in float64, the 16-byte loads
and the part-empty last warp); ``eighw``/``eighwz`` diagonalize stacks through the façade's
stack path on ``syevj_warp_fast`` and ``syevj_warp_xor`` (order 32 in float32: the row split, with
scaled rotations and without; orders 31 and 16 in complex128: the block split; A read and the
eigenvectors written in NumPy's layout). ``conv_wgmma`` runs the sm_90 warpgroup convolution on a 1 x 1 and a padded 3 x 3
problem (float16, channels last), the epilogue staged through shared memory and, with
``STAGED_EPILOGUE`` off, stored from the fragment. ``qr300`` factors a 300 x 300 matrix
(float64, complex128) through the blocked QR: ``geqr2``, ``larft_inv``, ``copy_v`` and the gemms.
``larft_inv`` builds block reflectors' T (k = 128, 64, 33, 16, 1; stacks of 2; float64 and
complex128) through ``larft_inv`` with its work matrix in shared memory and in T, and through the
recurrence ``larft``, and compares them.
``qrclus`` (sm_90) factors 1031 x 40 and 300 x 300 matrices (float64, complex128) with the
cluster-leaf row threshold lowered to 64, so that every leaf runs on one thread-block cluster
(``geqr2_cluster``: 1031 rows, the last block short; 300 - 32 j rows, down to 12 rows a block;
the panels' left-half leaves also forming their T).
``lupanel`` solves and factors stacks of order 100 and 65 (float64, complex128) through
``getrf_panel`` (its way back ``PANEL`` switched on) (several panels, a short last one; with and without the fused solve).
``trsv1`` solves triangular systems of order 300 through the one-launch trsv (``trsv_one``: block-rows
handed on by flags in global memory, the wait rounds' shared words double-buffered): every uplo and
trans in float64 (five block-rows, the last short), 'C' in complex128 (ten block-rows of 32) and a
negative increment in float32.
``lucl300`` (sm_90) solves order-300 systems (float64, complex128) with the cluster panel on
(``CLUSTER_PANEL``), its row threshold lowered to 64 and its blocks to 32 rows, so that the panels
of 300 down to 76 rows run on one thread-block cluster (``getf2_cluster``, a row a thread: those
over 256 rows on 16 blocks, where the driver finds room, the others on 8; the last blocks short
or empty; every panel applies its interchanges to the other columns itself, ``CLUSTER_SWAP``);
``lucl300l`` the same with the cluster panel's look-ahead step
(``CLUSTER_LOOKAHEAD``), ``lucl300f`` with its plain step's one fence a block (``CLUSTER_ONE_FENCE``).
``bnpipe`` runs the channels-first batch-norm training forward on the pipeline of resident blocks
(``bn_train_pipe_nchw``, ``PIPE_TRAINING`` on for any size, 7 blocks forced through ``pipe_blocks``:
3 x 10 x 4 x 701 float32 (two items a channel, four steps, the last one channel), 2 x 5 x 8 x 1025
float16 (three steps), 3 x 4 x 4 x 350 float64 (two steps)), every compiled (ITEMS, DEPTH), and checks
its wait error word.
"""

import sys

import numpy

CASES = ("lu37", "lub24", "lub128", "lub100c", "lub128w", "lub128x", "lub128xl", "lu300", "lu700", "lugrid300",
         "lugrid300c", "lurows300", "lurows300c", "luouter300", "spgemm_tiny", "spgemm_small", "spgemm_long",
         "spgemm_long_z64", "spgemm_laplacian", "attn_wgmma64", "attn_wgmma128", "attn_wgmma_units", "sytrd150", "sytrd150z",
         "sytrd150s", "sytrd150sz", "gesvw", "eighw", "eighwz", "conv_wgmma", "qr300", "larft_inv", "qrclus",
         "lupanel", "trsv1", "lucl300", "lucl300l", "lucl300f", "bnpipe")


def _lu_solve(case, rng, shape, dtype):
    """Solve a fresh system (stack) of ``shape`` and ``dtype`` with two right-hand sides; exit unless
    the residual is small. Returns the matrix."""
    import cupy

    import rocarray as ra

    scale = 1 + 1j if numpy.dtype(dtype).kind == "c" else 1
    a = cupy.asarray(rng.standard_normal(shape) * scale).astype(dtype)
    b = cupy.asarray(rng.standard_normal(shape[:-1] + (2,))).astype(dtype)
    x = ra.linalg.solve(a, b)
    residual = float(cupy.abs(a @ x - b).max())
    if not residual < 1e-3:
        raise SystemExit(f"{case} {dtype}: residual {residual}")
    return a


def _lu_case(case, rng):
    import cupy

    import rocarray as ra
    from rocarray.rocsolver import _lu_blocked, _lu_kernels

    if case.startswith("lugrid"):
        _lu_kernels.GRID_PANEL_ROWS, _lu_kernels.ROWS_KERNEL = 64, False
    if case.startswith("lurows"):
        _lu_kernels.ROWS_PANEL_ROWS = 64
    if case.startswith("luouter"):
        _lu_blocked.OUTER, _lu_blocked.GETRS_TRSV_RHS = 128, 1
    if case.startswith("lucl300"):
        _lu_kernels.CLUSTER_LOOKAHEAD = case == "lucl300l"
        _lu_kernels.CLUSTER_ONE_FENCE = case == "lucl300f"
        if not _lu_kernels.cluster_available(cupy.cuda.runtime.getDevice()):
            raise SystemExit(f"{case}: the device has no thread-block clusters (NVIDIA sm_90+)")
        _lu_kernels.CLUSTER_PANEL, _lu_kernels.CLUSTER_PANEL_ROWS = True, 64
    blocked = case in ("lub128", "lub100c", "lub128w", "lub128x", "lub128xl")
    if blocked:
        from rocarray.rocsolver import _lu_block

        _lu_block.ONE_BARRIER = case != "lub128w"
        _lu_block.WIDE = _lu_block.WIDE_FACTOR = case in ("lub128x", "lub128xl")
        _lu_block.WIDE_LOOKAHEAD = case == "lub128xl"
    dtype = "complex64" if case.endswith("c") else "float64"
    if case.startswith("lucl300"):
        # blocks of at most 32 rows (complex128: CLUSTER_BLOCK // 2): panels over 256 rows on 16 blocks
        for dtype, most in (("float64", 32), ("complex128", 64)):
            _lu_kernels.CLUSTER_BLOCK = most
            _lu_solve(case, rng, (300, 300), dtype)
        return
    shape = {"lu37": (37, 37), "lub24": (50, 24, 24), "lub128": (3, 128, 128), "lub100c": (3, 100, 100),
             "lub128w": (3, 128, 128), "lub128x": (3, 128, 128), "lub128xl": (3, 128, 128),
             "lu300": (300, 300), "lu700": (700, 700),
             "lugrid300": (300, 300), "lugrid300c": (300, 300), "lurows300": (300, 300), "lurows300c": (300, 300),
             "luouter300": (300, 300)}[case]
    a = _lu_solve(case, rng, shape, dtype)
    if blocked:   # the factorization alone (getrf_block without SOLVE)
        d = cupy.asnumpy(ra.linalg.slogdet(a)[1])
        want = numpy.linalg.slogdet(cupy.asnumpy(a).astype(numpy.complex128))[1]
        if not numpy.allclose(d, want, rtol=1e-4):
            raise SystemExit(f"{case}: log|det| {d} against {want}")


def _spgemm_case(case, rng):
    import scipy.sparse as sp

    import rocarray.rocsparse as rs
    from rocarray._checks.rocsparse_spgemm import _check_csr, _device, _laplacian_2d, _random_csr

    if case == "spgemm_laplacian":
        side = 32
        lap = _laplacian_2d(side, "float64")
        s = sp.csr_array((lap[2], lap[1], lap[0]), shape=(side * side,) * 2)
        got = rs.csrgemm(side * side, side * side, side * side, *_device(lap), *_device(lap))
        _check_csr(case, got, s @ s, "float64", 5)
        return
    dtype, index = ("complex128", "int64") if case.endswith("z64") else ("float64", "int32")
    m, k, n, per_a, per_b = {"spgemm_tiny": (50, 30, 200, 3, 4), "spgemm_small": (500, 300, 20000, 6, 40),
                             "spgemm_long": (4, 300, 20000, 150, 40),
                             "spgemm_long_z64": (4, 300, 20000, 150, 40)}[case]
    a, sa = _random_csr(rng, m, k, per_a, dtype, index, duplicates=case == "spgemm_small",
                        unsorted=case == "spgemm_small")
    b, sb = _random_csr(rng, k, n, per_b, dtype, index)
    _check_csr(case, rs.csrgemm(m, k, n, *_device(a), *_device(b)), sa @ sb, dtype, k)


def _attention_case(case, rng):
    import cupy

    from rocarray.miopen import _attention

    d = 128 if case.endswith("128") else 64
    heads = 300 if case.endswith("units") else 2
    q, k, v = (rng.standard_normal((1, heads, n, d)).astype(numpy.float16) for n in (129, 200, 200))
    for causal in (False, True):
        out, _ = _attention.attention_forward(*(cupy.asarray(x) for x in (q, k, v)), causal=causal,
                                              variant="wgmma")
        s = numpy.einsum("bhld,bhsd->bhls", q.astype(float), k.astype(float)) / numpy.sqrt(d)
        if causal:
            s = numpy.where(numpy.tril(numpy.ones(s.shape[-2:], bool)), s, -numpy.inf)
        p = numpy.exp(s - s.max(-1, keepdims=True))
        want = numpy.einsum("bhls,bhsd->bhld", p / p.sum(-1, keepdims=True), v.astype(float))
        err = float(numpy.abs(cupy.asnumpy(out).astype(float) - want).max())
        if not err < 1e-2:
            raise SystemExit(f"{case} causal={causal}: max error {err}")


def _sytrd_case(case, rng):
    import cupy

    from rocarray import rocsolver
    from rocarray.rocsolver import _sytrd_kernels

    n = 150
    dtype = "complex128" if case.endswith("z") else "float64"
    x = rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if dtype == "complex128" else 0)
    a = ((x + x.conj().T) / 2).astype(dtype)
    want = numpy.linalg.eigvalsh(a)
    if case.startswith("sytrd150s"):
        # the staged symv on two blocks a column: each warp pipelines several tiles
        _sytrd_kernels.warp_symv_blocks = lambda m, warps, wave, panel_cols=0: 2
        paths = ((True, True),)
    else:
        paths = ((True, True), (True, False), (False, True))
    for warp_tiles, staged in paths:
        _sytrd_kernels.WARP_TILES, _sytrd_kernels.STAGED = warp_tiles, staged
        A = cupy.asarray(a.T.ravel())  # column-major, the lower triangle used
        D, E = cupy.empty(n, numpy.float64), cupy.empty(n - 1, numpy.float64)
        tau = cupy.empty(n - 1, dtype)
        (rocsolver.hetrd if dtype == "complex128" else rocsolver.sytrd)("L", n, A, n, D, E, tau)
        d, e = cupy.asnumpy(D), cupy.asnumpy(E)
        got = numpy.linalg.eigvalsh(numpy.diag(d) + numpy.diag(e, 1) + numpy.diag(e, -1))
        err = float(numpy.abs(got - want).max())
        if not err < 1e-9 * n:
            raise SystemExit(f"{case} warp_tiles={warp_tiles} staged={staged}: eigenvalue error {err}")


def _batched_case(case, rng):
    import cupy

    import rocarray as ra

    if case == "lupanel":
        from rocarray.rocsolver import _lu_block

        _lu_block.PANEL = True
        for n, dtype in ((100, "float64"), (65, "complex128")):
            scale = 1 + 1j if dtype == "complex128" else 1
            a = cupy.asarray(rng.standard_normal((5, n, n)) * scale).astype(dtype)
            b = cupy.asarray(rng.standard_normal((5, n, 2))).astype(dtype)
            x = ra.linalg.solve(a, b)
            residual = float(cupy.abs(a @ x - b).max())
            d = cupy.asnumpy(ra.linalg.slogdet(a)[1])
            want = numpy.linalg.slogdet(cupy.asnumpy(a))[1]
            if not (residual < 1e-8 and numpy.allclose(d, want, rtol=1e-10)):
                raise SystemExit(f"{case} {n} {dtype}: residual {residual}, det {d} against {want}")
        return
    if case == "gesvw":
        for shape, dtype in (((300, 32, 32), "float32"), ((45, 8, 8), "float64")):
            a = cupy.asarray(rng.standard_normal(shape)).astype(dtype)
            b = cupy.asarray(rng.standard_normal(shape[:-1] + (1,))).astype(dtype)
            x = ra.linalg.solve(a, b)
            residual = float(cupy.abs(a @ x - b).max())
            if not residual < (1e-2 if dtype == "float32" else 1e-8):
                raise SystemExit(f"{case} {shape} {dtype}: residual {residual}")
        return
    from rocarray.rocsolver import _eigh_kernels

    dtype = "complex128" if case.endswith("z") else "float32"
    # float32: syevj_warp_fast, then syevj_warp_xor (FAST_ROTATIONS off)
    for n, fast in (((31, True), (16, True)) if dtype == "complex128" else ((32, True), (32, False))):
        _eigh_kernels.FAST_ROTATIONS = fast
        x = rng.standard_normal((40, n, n)) + (1j * rng.standard_normal((40, n, n)) if dtype == "complex128" else 0)
        a = cupy.asarray((x + x.conj().transpose(0, 2, 1)) / 2).astype(dtype)
        w, v = ra.linalg.eigh(a)
        err = float(cupy.abs(a @ v - v * w[:, None, :]).max())
        if not err < (1e-3 if dtype == "float32" else 1e-10) * n:
            raise SystemExit(f"{case} order {n}: eigenpair error {err}")


def _conv_case(case, rng):
    import cupy

    import rocarray as ra
    from rocarray.miopen import _conv_wgmma

    for staged in (True, False):
        _conv_wgmma.STAGED_EPILOGUE = staged
        ra.config.refresh()
        for k, size, pad in ((256, 1, 0), (40, 3, 1)):
            x = rng.standard_normal((2, 9, 7, 64)).astype(numpy.float16)
            w = (rng.standard_normal((k, size, size, 64)) / 8).astype(numpy.float16)
            y = cupy.asnumpy(ra.nn.conv2d(cupy.asarray(x), cupy.asarray(w), padding=pad, layout="NHWC",
                                          algo="implicit_gemm")).astype(float)
            xp = numpy.pad(x.astype(float), ((0, 0), (pad, pad), (pad, pad), (0, 0)))
            want = sum(numpy.einsum("nhwc,kc->nhwk", xp[:, r:r + 9, s:s + 7], w[:, r, s].astype(float))
                       for r in range(size) for s in range(size))
            err = float(numpy.abs(y - want).max())
            if not err < 0.05:
                raise SystemExit(f"{case} k={k} staged={staged}: max error {err}")


def _qr_case(case, rng):
    import cupy

    import rocarray as ra

    from rocarray.rocsolver import _qr_kernels

    shapes = ((300, 300),)
    if case == "qrclus":
        if not _qr_kernels.cluster_available(cupy.cuda.runtime.getDevice()):
            raise SystemExit(f"{case}: the device has no thread-block clusters (NVIDIA sm_90+)")
        _qr_kernels.CLUSTER_LEAF_ROWS = 64
        shapes = ((1031, 40), (300, 300))
    for dtype in ("float64", "complex128"):
        for shape in shapes:
            a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dtype == "complex128" else 0)
            q, r = ra.linalg.qr(cupy.asarray(a.astype(dtype)))
            err = float(numpy.abs(cupy.asnumpy(q) @ cupy.asnumpy(r) - a).max())
            if not err < 1e-10:
                raise SystemExit(f"{case} {dtype} {shape}: max error of Q R {err}")


def _larft_case(case, rng):
    import cupy

    from rocarray.rocsolver import _qr_kernels

    for dtype in ("float64", "complex128"):
        for k in (128, 64, 33, 16, 1):
            s, tau = numpy.zeros((2, k, k), dtype), numpy.zeros((2, k), dtype)
            for b in range(2):  # LAPACK's reflectors (a bounded T)
                a = rng.standard_normal((k + 9, k)) + (1j * rng.standard_normal((k + 9, k)) if dtype == "complex128"
                                                       else 0)
                h, tau[b] = numpy.linalg.qr(a, mode="raw")
                v = numpy.tril(h.T, -1) + numpy.eye(k + 9, k)
                s[b] = (v.conj().T @ v).T  # column-major
            S, t = cupy.asarray(s.reshape(-1)), cupy.asarray(tau.reshape(-1))
            out = []
            for inverse, shared in ((True, True), (True, False), (False, True)):
                _qr_kernels.LARFT_INVERSE, _qr_kernels.LARFT_INVERSE_SHARED = inverse, shared
                T = cupy.zeros(2 * k * k, dtype)
                _qr_kernels.larft(k, S, k, k * k, t, k, T, k, k * k, 2)
                out.append(cupy.asnumpy(T))
            _qr_kernels.LARFT_INVERSE, _qr_kernels.LARFT_INVERSE_SHARED = True, True
            err = max(float(numpy.abs(o - out[2]).max()) for o in out[:2])
            if not err <= 1e-9 * k * float(numpy.abs(out[2]).max()):
                raise SystemExit(f"{case} k={k} {dtype}: T differs from the recurrence's by {err}")


def _check_batch_norm(case, x, y):
    """Exit unless y (float64) is x normalized per channel (axis 1; eps 1e-5, no affine) within
    the tolerance of x's dtype."""
    xd = x.astype(float)
    want = (xd - xd.mean(axis=(0, 2, 3), keepdims=True)) / numpy.sqrt(xd.var(axis=(0, 2, 3), keepdims=True) + 1e-5)
    err = float(numpy.abs(y - want).max())
    if not err < (1e-2 if x.dtype == numpy.float16 else 1e-4):
        raise SystemExit(f"{case} {x.shape} {x.dtype}: max error {err}")


def _trsv_case(case, rng):
    import cupy

    from rocarray.rocblas import _level2

    _level2.TRSV_ONE_LAUNCH = True
    n = 300
    cases = [("float64", uplo, trans, 1) for uplo in "UL" for trans in "NT"]
    cases += [("complex128", "U", "C", 1), ("float32", "L", "N", -1)]
    for dtype, uplo, trans, incx in cases:
        a = rng.standard_normal((n, n)) / n + 2 * numpy.eye(n)
        if dtype.startswith("complex"):
            a = a + 1j * rng.standard_normal((n, n)) / n
        t = numpy.triu(a) if uplo == "U" else numpy.tril(a)
        op = t if trans == "N" else (t.T if trans == "T" else t.conj().T)
        b = rng.standard_normal(n).astype(dtype)
        x = cupy.asarray(b if incx > 0 else b[::-1].copy())
        _level2.trsv(uplo, trans, "N", n, cupy.asarray(numpy.asfortranarray(a.astype(dtype)).ravel(order="F")), n,
                     x, incx)
        got = cupy.asnumpy(x) if incx > 0 else cupy.asnumpy(x)[::-1]
        err = float(numpy.abs(got - numpy.linalg.solve(op, b.astype(numpy.complex128))).max())
        if not err < (1e-3 if dtype == "float32" else 1e-10):
            raise SystemExit(f"{case} {uplo}{trans} {dtype}: max error {err}")
    _level2.check_trsv()


def _bn_pipe_case(case, rng):
    import cupy

    import rocarray as ra
    from rocarray.miopen import _batchnorm

    dev = cupy.cuda.runtime.getDevice()
    _batchnorm.PIPE_TRAINING, _batchnorm.PIPE_MIN_BYTES = True, 0
    _batchnorm.pipe_blocks = lambda device_id, dtype, items, depth: 7
    for _batchnorm.PIPE_ITEMS, _batchnorm.PIPE_DEPTH in _batchnorm.PIPE_SHAPES:
        for shape, dtype in (((3, 10, 4, 701), "float32"), ((2, 5, 8, 1025), "float16"), ((3, 4, 4, 350), "float64")):
            x = rng.standard_normal(shape).astype(dtype)
            y = cupy.asnumpy(ra.nn.batch_norm(cupy.asarray(x), None, None, training=True)).astype(float)
            _batchnorm.check_pipe(dev)
            _check_batch_norm(case, x, y)


def main(argv):
    if len(argv) != 1 or argv[0] not in CASES + ("--list",):
        print(__doc__.strip().splitlines()[0] + "\ncases: " + " ".join(CASES), file=sys.stderr)
        return 2
    if argv[0] == "--list":
        print(" ".join(CASES))
        return 0
    import cupy

    from rocarray._core import launch
    from sanitize import KernelNames  # the folder of this script is on the path when it runs

    names = KernelNames()
    launch.observer = names
    rng = numpy.random.default_rng(5)
    case = argv[0]
    run = (_trsv_case if case == "trsv1" else _batched_case if case == "lupanel" else _lu_case if case.startswith("lu") else _attention_case if case.startswith("attn")
           else _sytrd_case if case.startswith("sytrd") else _conv_case if case.startswith("conv")
           else _batched_case if case in ("gesvw", "eighw", "eighwz") else _qr_case if case.startswith("qr")
           else _larft_case if case == "larft_inv" else _bn_pipe_case if case == "bnpipe"
           else _spgemm_case)
    run(case, rng)
    cupy.cuda.runtime.deviceSynchronize()
    launch.observer = None
    print(case, "ok; kernels:", " ".join(sorted(names.names)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
