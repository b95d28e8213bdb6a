"""A NumPy model of ``rocarray/rocsolver/_svd_kernels.py`` (the kernels of ``svd.hip``) on host
arrays, for CPU tests of the gesvdj driver: the same buffers, layouts and formulas, loop by loop."""

import numpy as np


def pair(r, k, qe):
    """Columns of pair k in round r of the tournament on qe (even) columns (``ra_svd_pair``)."""
    n1 = qe - 1
    if k == 0:
        return r, n1
    return (r + k) % n1, (r - k + n1) % n1


def rotation(alpha, beta, gamma, tol):
    """``(rotate, c, se, sec, off)`` as ``ra_svd_rotation``."""
    g = abs(gamma)
    if not (np.isfinite(alpha) and np.isfinite(beta) and np.isfinite(g)):
        return False, 1, 0, 0, np.inf
    if alpha == 0 or beta == 0:
        return False, 1, 0, 0, 0.0
    off = g / (np.sqrt(alpha) * np.sqrt(beta))
    if not off > tol:
        return False, 1, 0, 0, off
    zeta = (beta - alpha) / (2 * g)
    az = abs(zeta)
    t = 0.5 / az if az > 1e15 else 1 / (az + np.sqrt(1 + zeta * zeta))
    if zeta < 0:
        t = -t
    c = 1 / np.sqrt(1 + t * t)
    s = c * t
    e = gamma / g
    return True, c, s * e, s * np.conj(e), off


def _pair_step(w, v, i, j, tol):
    wi, wj = w[:, i].copy(), w[:, j].copy()
    alpha = np.sum(np.abs(wi) ** 2)
    beta = np.sum(np.abs(wj) ** 2)
    gamma = np.vdot(wi, wj)
    rot, c, se, sec, off = rotation(alpha, beta, gamma, tol)
    if rot:
        w[:, i], w[:, j] = c * wi - sec * wj, se * wi + c * wj
    if rot and v is not None:
        vi, vj = v[:, i].copy(), v[:, j].copy()
        v[:, i], v[:, j] = c * vi - sec * vj, se * vi + c * vj
    return off


BLOCK_COLS = 16


class _BlockSweeper:
    """``_svd_kernels.BlockSweeper``: per round, for each block pair X = [W_i W_j] (32 columns,
    past q padded with zeros), G = X^H X, the largest relative off of G raises off_bits, and above
    tol one cyclic sweep of rotations (in the kernel's parallel order) on G accumulates J;
    then X := X J and V_X := V_X J."""

    def __init__(self, model, p, q, batch, W, V, tol, off_bits):
        self.model, self.p, self.q, self.batch = model, p, q, batch
        self.W, self.V, self.tol, self.off_bits = W, V, tol, off_bits
        self.nb = -(-q // BLOCK_COLS)
        self.nbe = self.nb + (self.nb & 1)

    def __call__(self):
        for r in range(self.nbe - 1):
            self.model.launches["block_round"] += 1
            for b in range(self.batch):
                w, v = Model._views(self.p, self.q, b, self.W, self.V)
                for k in range(self.nbe // 2):
                    self._pair(b, w, v, *pair(r, k, self.nbe))   # the pad block nb: zero columns

    def _pair(self, b, w, v, bi, bj):
        pc = 2 * BLOCK_COLS
        cols = np.concatenate([np.arange(bi * BLOCK_COLS, (bi + 1) * BLOCK_COLS),
                               np.arange(bj * BLOCK_COLS, (bj + 1) * BLOCK_COLS)])
        live = cols < self.q
        x = np.zeros((self.p, pc), w.dtype)
        x[:, live] = w[:, cols[live]]
        g = x.conj().T @ x
        if not np.all(np.isfinite(g)):
            off = np.inf
        else:
            d = g.diagonal().real
            iu, ju = np.triu_indices(pc, 1)
            ok = (d[iu] > 0) & (d[ju] > 0)
            off = np.max(np.abs(g[iu, ju])[ok] / (np.sqrt(d[iu][ok]) * np.sqrt(d[ju][ok])), initial=0.0)
        if off > 0:
            bits = np.array([off], np.float64).view(np.uint64)[0]
            self.off_bits[b] = max(self.off_bits[b], bits)
        if not (np.isfinite(off) and off > self.tol):
            return
        j = np.eye(pc, dtype=w.dtype)
        for ir in range(pc - 1):
            rots = []
            for kk in range(pc // 2):
                i, jj = pair(ir, kk, pc)
                rot, c, se, sec, _ = rotation(g[i, i].real, g[jj, jj].real, g[i, jj], self.tol)
                if rot:
                    rots.append((i, jj, c, se, sec))
            for i, jj, c, se, sec in rots:     # G := G J_round, J := J J_round
                for m in (g, j):
                    a, bb = m[:, i].copy(), m[:, jj].copy()
                    m[:, i], m[:, jj] = c * a - sec * bb, se * a + c * bb
            for i, jj, c, se, sec in rots:     # G := J_round^H G
                a, bb = g[i, :].copy(), g[jj, :].copy()
                g[i, :], g[jj, :] = c * a - se * bb, sec * a + c * bb
        w[:, cols[live]] = (x @ j)[:, live]
        if v is not None:
            xv = np.zeros((self.q, pc), v.dtype)
            xv[:, live] = v[:, cols[live]]
            v[:, cols[live]] = (xv @ j)[:, live]


class Model:
    """Stand-in for ``rocarray.rocsolver._svd_kernels`` (monkeypatched into ``_svd._kern``)."""

    def __init__(self):
        self.launches = {"small": 0, "round": 0, "block_round": 0}

    # memory
    @staticmethod
    def empty(elements, dtype, like):
        dtype = np.dtype(dtype)
        out = np.empty(max(int(elements), 1), dtype)
        out.fill(np.nan if dtype.kind in "fc" else 7)  # poison
        return out

    @staticmethod
    def zeros(elements, dtype, like):
        return np.zeros(max(int(elements), 1), dtype)

    @staticmethod
    def to_host(x):
        return np.array(x, copy=True)

    @staticmethod
    def write(x, values):
        x[...] = np.asarray(values, dtype=x.dtype).reshape(x.shape)

    # kernels
    @staticmethod
    def _views(p, q, b, W, V):
        w = W[b * p * q:(b + 1) * p * q].reshape(q, p).T
        v = None if V is None else V[b * q * q:(b + 1) * q * q].reshape(q, q).T
        return w, v

    def load(self, p, q, batch, A, lda, strideA, trans, W, V):
        for b in range(batch):
            w, v = self._views(p, q, b, W, V)
            rows, cols = (q, p) if trans else (p, q)
            a = np.array([[A[b * strideA + i + j * lda] for j in range(cols)] for i in range(rows)])
            w[...] = a.conj().T if trans else a
            if v is not None:
                v[...] = np.eye(q)

    def jacobi_small(self, p, q, batch, W, V, tol, max_sweeps, residual, n_sweeps, info):
        self.launches["small"] += 1
        qe = q + (q & 1)
        for b in range(batch):
            w, v = self._views(p, q, b, W, V)
            sweep, worst, done = 0, 0.0, q < 2
            while not done and sweep < max_sweeps:
                worst = 0.0
                for r in range(qe - 1):
                    for k in range(qe // 2):
                        i, j = pair(r, k, qe)
                        if i < q and j < q:
                            worst = max(worst, _pair_step(w, v, i, j, tol))
                sweep += 1
                done = worst <= tol or not np.isfinite(worst)
            residual[b], n_sweeps[b], info[b] = worst, sweep, 0 if worst <= tol else 1

    def BlockSweeper(self, p, q, batch, W, V, tol, off_bits):  # noqa: N802 (the module's class name)
        return _BlockSweeper(self, p, q, batch, W, V, tol, off_bits)

    def jacobi_sweep(self, p, q, batch, W, V, tol, off_bits):
        qe = q + (q & 1)
        for r in range(qe - 1):
            self._round(p, q, batch, r, W, V, tol, off_bits)

    def _round(self, p, q, batch, r, W, V, tol, off_bits):
        self.launches["round"] += 1
        qe = q + (q & 1)
        for b in range(batch):
            w, v = self._views(p, q, b, W, V)
            for k in range(qe // 2):
                i, j = pair(r, k, qe)
                if i < q and j < q:
                    off = _pair_step(w, v, i, j, tol)
                    if off > 0:
                        bits = np.array([off], np.float64).view(np.uint64)[0]
                        off_bits[b] = max(off_bits[b], bits)

    def norms(self, p, q, batch, W, out):
        for c in range(batch * q):
            out[c] = np.sqrt(np.sum(np.abs(W[c * p:(c + 1) * p]) ** 2))

    def sort(self, p, q, batch, W, V, nrm, S, strideS, X, ldx, strideX, xrow, Y, ldy, strideY, yrow):
        for b in range(batch):
            w, v = self._views(p, q, b, W, V)
            nb = nrm[b * q:(b + 1) * q]
            key = np.where(np.isnan(nb), -1, nb)
            for j in range(q):
                rank = int(np.sum((key > key[j]) | ((key == key[j]) & (np.arange(q) < j))))
                sj = nb[j]
                S[b * strideS + rank] = sj
                if X is not None:
                    inv = 1 / sj if (sj > 0 and np.isfinite(sj)) else 0
                    for e in range(p):
                        with np.errstate(invalid="ignore"):
                            val = inv * w[e, j]
                        if xrow:
                            X[b * strideX + rank + e * ldx] = np.conj(val)
                        else:
                            X[b * strideX + e + rank * ldx] = val
                if Y is not None:
                    for e in range(q):
                        if yrow:
                            Y[b * strideY + rank + e * ldy] = np.conj(v[e, j])
                        else:
                            Y[b * strideY + e + rank * ldy] = v[e, j]
