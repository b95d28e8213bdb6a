// rocsolver: the merge steps of the divide-and-conquer tridiagonal eigensolver
// (rocarray/rocsolver/_stedc.py). Every kernel serves all merges of one level of the tree at once;
// a merge is (o, n1, n2): its two children occupy rows/columns o..o+n1-1 and o+n1..o+n1+n2-1 of
// the n x n eigenvector matrix Q, their eigenvalues (each child's ascending) D[o..o+n1+n2-1].
// Per-position work arrays (length n) are indexed by o + local position.
//
// ra_rocsolver_stedc_deflate<T>: one block per merge. z from the children's eigenvector rows
//   (last row of Q1, first row of Q2, the second negated for a negative coupling), normalized
//   (rho := |beta| ||z||^2), and the children's values merged into ascending order by rank, by
//   all threads; then deflation by one thread, in order, as LAPACK's laed2 (rho |z_j| <= tol;
//   two values whose Givens rotation leaves |t c s| <= tol).
//   Out: the k kept values dl[0..k) with their z, the deflated values dl[k..N) ascending, the
//   child-local row index of every position, the rotations in the order they were made.
// ra_rocsolver_stedc_secular<T>: one thread per kept value j: root j of the secular equation
//   1/rho + sum_i z_i^2 / (dl_i - lambda) = 0, as (origin index, tau): lambda = dl[origin] + tau
//   with origin the nearer pole, so that dl_i - lambda = (dl_i - dl[origin]) - tau keeps its
//   relative accuracy. Two-pole rational model steps (the nearest pole on each side fitted in value
//   and slope), bracketed, bisection when a step leaves the bracket.
// ra_rocsolver_stedc_loewner<T>: one thread per kept value: the z of which the computed roots are
//   the exact eigenvalues (Gu and Eisenstat, Loewner's formula), which keeps the vectors orthogonal.
// ra_rocsolver_stedc_vectors<T>: one block per column of the merged problem: the column of U
//   (rows: the children's positions, columns: the merged eigenvalues ascending) so that
//   Q_merged = diag(Q1, Q2) U; the kept roots' columns zh_i / (dl_i - lambda_j) normalized, the
//   deflated ones unit vectors, the deflation rotations applied last-to-first; the eigenvalue to
//   D at its rank.

#define RA_STEDC_BLOCK 128

template <typename T> struct ra_stedc_eps;
template <> struct ra_stedc_eps<float> { static RA_DEVICE float value() { return 5.9604644775390625e-08f; } };
template <> struct ra_stedc_eps<double> { static RA_DEVICE double value() { return 1.1102230246251565e-16; } };

template <typename T> RA_DEVICE T ra_stedc_max(T a, T b) { return a > b ? a : b; }

// Rank of value v among the ascending a[0..count): the number of entries < v (strict) or <= v.
template <typename T>
RA_DEVICE int ra_stedc_rank(const T* a, int count, T v, bool strict) {
    int lo = 0, hi = count;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        bool before = strict ? a[mid] < v : a[mid] <= v;
        if (before) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// Block reduction (sum, or max of non-negative values) of one value per thread.
template <typename T>
RA_DEVICE T ra_stedc_block_reduce(T* red, T v, bool sum) {
    red[threadIdx.x] = v;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) {
            T w = red[threadIdx.x + h];
            red[threadIdx.x] = sum ? red[threadIdx.x] + w : ra_stedc_max(red[threadIdx.x], w);
        }
        __syncthreads();
    }
    T r = red[0];
    __syncthreads();
    return r;
}

template <typename T>
__global__ void __launch_bounds__(RA_STEDC_BLOCK)
ra_rocsolver_stedc_deflate(const int* __restrict__ mo, const int* __restrict__ mn1, const int* __restrict__ mn2,
                           const T* __restrict__ D, const T* __restrict__ Q, ra_i64 ldq, const T* __restrict__ E,
                           T* __restrict__ zs, T* __restrict__ wd, T* __restrict__ wz, int* __restrict__ wi,
                           T* __restrict__ dl, T* __restrict__ zw, int* __restrict__ idx, int* __restrict__ rot_ab,
                           T* __restrict__ rot_cs, int* __restrict__ counts, T* __restrict__ rhos) {
    __shared__ T red[RA_STEDC_BLOCK];
    const int m = blockIdx.x;
    const int o = mo[m], n1 = mn1[m], N = n1 + mn2[m];
    const T eps = ra_stedc_eps<T>::value();
    const T beta = E[o + n1 - 1];
    const T sgn = beta < T(0) ? T(-1) : T(1);
    // z (the rows of Q1 and Q2 next to the cut), its norm, the largest |d| and |z|
    T part = T(0), dpart = T(0), zpart = T(0);
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        ra_i64 row = i < n1 ? o + n1 - 1 : o + n1;
        T z = Q[row + (ra_i64)(o + i) * ldq];
        if (i >= n1) z *= sgn;
        zs[o + i] = z;
        part += z * z;
        dpart = ra_stedc_max(dpart, ra_abs(D[o + i]));
        zpart = ra_stedc_max(zpart, ra_abs(z));
    }
    const T nrm2 = ra_stedc_block_reduce(red, part, true);
    const T dmax = ra_stedc_block_reduce(red, dpart, false);
    const T inv = T(1) / ra_sqrt(nrm2);
    const T zmax = ra_stedc_block_reduce(red, zpart, false) * inv;
    const T rho = ra_abs(beta) * nrm2;
    // the two ascending lists merged by rank (ties: the first child's value first)
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        T v = D[o + i];
        int pos = i < n1 ? i + ra_stedc_rank(D + o + n1, N - n1, v, true)
                         : (i - n1) + ra_stedc_rank(D + o, n1, v, false);
        wd[o + pos] = v;
        wz[o + pos] = zs[o + i] * inv;
        wi[o + pos] = i;
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    const T tol = T(8) * eps * ra_stedc_max(dmax, zmax);
    int k = 0, nd = 0, nrot = 0;
    // the deflated values to zs (free after the merge) and their indices to idx[0..nd), kept
    // ascending by insertion; the kept ones compacted in place in wd/wz/wi's order (k <= j)
    T* dd = zs + o;
    int* di = idx + o;
    int pj = -1;
    for (int j = 0; j < N; ++j) {
        if (rho * ra_abs(wz[o + j]) <= tol) {
            T v = wd[o + j];
            int t = nd++;
            for (; t > 0 && dd[t - 1] > v; --t) { dd[t] = dd[t - 1]; di[t] = di[t - 1]; }
            dd[t] = v;
            di[t] = wi[o + j];
            continue;
        }
        if (pj < 0) { pj = j; continue; }
        T s = wz[o + pj], c = wz[o + j];
        T tau = ra_sqrt(c * c + s * s);  // |c|, |s| <= 1: z is normalized
        T gap = wd[o + j] - wd[o + pj];
        c /= tau;
        s = -s / tau;
        if (ra_abs(gap * c * s) <= tol) {
            wz[o + j] = tau;
            wz[o + pj] = T(0);
            rot_ab[2 * (o + nrot)] = wi[o + pj];
            rot_ab[2 * (o + nrot) + 1] = wi[o + j];
            rot_cs[2 * (o + nrot)] = c;
            rot_cs[2 * (o + nrot) + 1] = s;
            ++nrot;
            T dp = wd[o + pj], dn = wd[o + j];
            T v = dp * c * c + dn * s * s;
            wd[o + j] = dp * s * s + dn * c * c;
            int t = nd++;
            for (; t > 0 && dd[t - 1] > v; --t) { dd[t] = dd[t - 1]; di[t] = di[t - 1]; }
            dd[t] = v;
            di[t] = wi[o + pj];
        } else {
            dl[o + k] = wd[o + pj];
            zw[o + k] = wz[o + pj];
            wi[o + k] = wi[o + pj];  // k <= pj: compacted in place
            ++k;
        }
        pj = j;
    }
    if (pj >= 0) {
        dl[o + k] = wd[o + pj];
        zw[o + k] = wz[o + pj];
        wi[o + k] = wi[o + pj];
        ++k;
    }
    // deflated after the kept ones: values to dl[k..N), indices to idx[k..N) (from the back, as
    // di aliases idx[0..nd))
    for (int t = nd - 1; t >= 0; --t) {
        dl[o + k + t] = dd[t];
        idx[o + k + t] = di[t];
    }
    for (int j = 0; j < k; ++j) idx[o + j] = wi[o + j];
    counts[2 * m] = k;
    counts[2 * m + 1] = nrot;
    rhos[m] = rho;
}

// f(tau) = 1/rho + psi + phi at lambda = dl[origin] + tau; psi sums the poles i <= j, phi the rest.
template <typename T>
RA_DEVICE T ra_stedc_secular_eval(const T* dl, const T* z, int k, int j, int origin, T tau, T rhoinv, T* psi,
                                  T* dpsi, T* phi, T* dphi, T* err) {
    T p = T(0), dp = T(0), f = T(0), df = T(0), e = T(0);
    const T d0 = dl[origin];
    for (int i = 0; i < k; ++i) {
        T delta = (dl[i] - d0) - tau;
        T t = z[i] / delta;
        T term = z[i] * t;
        if (i <= j) { p += term; dp += t * t; } else { f += term; df += t * t; }
        e += ra_abs(term);
    }
    *psi = p; *dpsi = dp; *phi = f; *dphi = df; *err = e;
    return rhoinv + p + f;
}

template <typename T>
__global__ void ra_rocsolver_stedc_secular(int n, const int* __restrict__ pm, const int* __restrict__ mo,
                                           const int* __restrict__ counts, const T* __restrict__ rhos,
                                           const T* __restrict__ dl_all, const T* __restrict__ zw_all,
                                           int* __restrict__ org, T* __restrict__ taus) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const int m = pm[p], o = mo[m], j = p - o, k = counts[2 * m];
    if (j >= k) return;
    const T* dl = dl_all + o;
    const T* z = zw_all + o;
    const T rho = rhos[m], rhoinv = T(1) / rho, eps = ra_stedc_eps<T>::value();
    const bool last = j == k - 1;
    int origin = j;
    T lo, hi, tau;
    T psi, dpsi, phi, dphi, err, f;
    if (last) {
        T zz = T(0);
        for (int i = 0; i < k; ++i) zz += z[i] * z[i];
        lo = T(0);
        hi = rho * zz;
        tau = hi;
        f = ra_stedc_secular_eval(dl, z, k, j, origin, tau, rhoinv, &psi, &dpsi, &phi, &dphi, &err);
        if (f <= T(0)) { org[p] = origin; taus[p] = tau; return; }
    } else {
        const T mid = (dl[j + 1] - dl[j]) * T(0.5);
        f = ra_stedc_secular_eval(dl, z, k, j, j, mid, rhoinv, &psi, &dpsi, &phi, &dphi, &err);
        if (f >= T(0)) {
            lo = T(0); hi = mid; tau = mid;
        } else {
            origin = j + 1;
            lo = -mid; hi = T(0); tau = -mid;  // the same point from the upper pole
        }
        if (f == T(0)) { org[p] = origin; taus[p] = tau; return; }
    }
    const T d0 = dl[origin];
    for (int it = 0; it < 200; ++it) {
        // bracket from the sign of f at tau (f increases with tau between the poles)
        if (f < T(0)) lo = tau; else hi = tau;
        T dlo = (dl[j] - d0) - tau;
        T s1 = dlo * dlo * dpsi;
        T eta;
        bool ok;
        if (last) {
            T c = f - s1 / dlo;
            eta = dlo + s1 / c;
            ok = c > T(0);
        } else {
            T dhi = (dl[j + 1] - d0) - tau;
            T s2 = dhi * dhi * dphi;
            T c = f - s1 / dlo - s2 / dhi;
            T b = c * (dlo + dhi) + s1 + s2;
            T cc = c * dlo * dhi + s1 * dhi + s2 * dlo;
            if (c == T(0)) {
                eta = cc / b;
            } else {
                T disc = ra_sqrt(ra_stedc_max(b * b - T(4) * c * cc, T(0)));
                T q = b >= T(0) ? b + disc : b - disc;
                T e1 = q / (T(2) * c), e2 = T(2) * cc / q;
                eta = (e1 > dlo && e1 < dhi) ? e1 : e2;
            }
            ok = eta > dlo && eta < dhi;
        }
        T next = tau + eta;
        if (!ok || !(next > lo && next < hi) || it >= 40) next = lo + (hi - lo) * T(0.5);
        bool small_step = ra_abs(next - tau) <= T(2) * eps * ra_stedc_max(ra_abs(next), ra_abs(tau));
        tau = next;
        f = ra_stedc_secular_eval(dl, z, k, j, origin, tau, rhoinv, &psi, &dpsi, &phi, &dphi, &err);
        T bound = eps * (T(8) * err + T(2) * rhoinv + T(3) * ra_abs(tau) * (dpsi + dphi));
        if (ra_abs(f) <= bound || small_step || !(hi - lo > T(2) * eps * ra_stedc_max(ra_abs(lo), ra_abs(hi)))) break;
    }
    org[p] = origin;
    taus[p] = tau;
}

template <typename T>
__global__ void ra_rocsolver_stedc_loewner(int n, const int* __restrict__ pm, const int* __restrict__ mo,
                                           const int* __restrict__ counts, const T* __restrict__ dl_all,
                                           const T* __restrict__ zw_all, const int* __restrict__ org_all,
                                           const T* __restrict__ tau_all, T* __restrict__ zh) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const int m = pm[p], o = mo[m], i = p - o, k = counts[2 * m];
    if (i >= k) return;
    const T* dl = dl_all + o;
    const int* org = org_all + o;
    const T* tau = tau_all + o;
    const T di = dl[i];
    // zh_i^2 = prod_j (lambda_j - d_i) / prod_{j != i} (d_j - d_i), up to the common factor 1/rho
    T w = (di - dl[org[i]]) - tau[i];
    for (int j = 0; j < k; ++j) {
        if (j == i) continue;
        w *= ((di - dl[org[j]]) - tau[j]) / (di - dl[j]);
    }
    T r = ra_sqrt(ra_stedc_max(-w, T(0)));
    zh[p] = zw_all[p] < T(0) ? -r : r;
}

template <typename T>
RA_DEVICE int ra_stedc_roots_at_most(const T* dl, const int* org, const T* tau, int k, T v) {
    int lo = 0, hi = k;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (dl[org[mid]] + tau[mid] <= v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

template <typename T>
__global__ void __launch_bounds__(RA_STEDC_BLOCK)
ra_rocsolver_stedc_vectors(int n, const int* __restrict__ pm, const int* __restrict__ mo,
                           const int* __restrict__ mn1, const int* __restrict__ mn2, const int* __restrict__ counts,
                           const T* __restrict__ dl_all, const T* __restrict__ zh_all, const int* __restrict__ idx_all,
                           const int* __restrict__ org_all, const T* __restrict__ tau_all,
                           const int* __restrict__ rot_ab, const T* __restrict__ rot_cs, T* __restrict__ U,
                           ra_i64 ldu, T* __restrict__ D) {
    __shared__ T red[RA_STEDC_BLOCK];
    const int p = blockIdx.x;
    if (p >= n) return;
    const int m = pm[p], o = mo[m], N = mn1[m] + mn2[m], c = p - o, k = counts[2 * m], nrot = counts[2 * m + 1];
    const T* dl = dl_all + o;
    const int* idx = idx_all + o;
    const int* org = org_all + o;
    const T* tau = tau_all + o;
    T value;
    int pos;
    if (c < k) {
        value = dl[org[c]] + tau[c];
        pos = c + ra_stedc_rank(dl + k, N - k, value, true);
    } else {
        value = dl[c];
        pos = (c - k) + ra_stedc_roots_at_most(dl, org, tau, k, value);
    }
    T* col = U + o + (ra_i64)(o + pos) * ldu;
    for (int i = threadIdx.x; i < N; i += blockDim.x) col[i] = T(0);
    __syncthreads();
    if (c < k) {
        const T* zh = zh_all + o;
        const T d0 = dl[org[c]], t0 = tau[c];
        T s = T(0);
        for (int i = threadIdx.x; i < k; i += blockDim.x) {
            T v = zh[i] / ((dl[i] - d0) - t0);
            s += v * v;
        }
        red[threadIdx.x] = s;
        __syncthreads();
        for (int h = blockDim.x / 2; h > 0; h >>= 1) {
            if (threadIdx.x < h) red[threadIdx.x] += red[threadIdx.x + h];
            __syncthreads();
        }
        const T scale = T(1) / ra_sqrt(red[0]);
        for (int i = threadIdx.x; i < k; i += blockDim.x) col[idx[i]] = zh[i] / ((dl[i] - d0) - t0) * scale;
    } else if (threadIdx.x == 0) {
        col[idx[c]] = T(1);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        // U = G_1 ... G_r U': the last rotation first; G_t mixes rows a, b by (c, s)
        for (int t = nrot - 1; t >= 0; --t) {
            int a = rot_ab[2 * (o + t)], b = rot_ab[2 * (o + t) + 1];
            T cs = rot_cs[2 * (o + t)], sn = rot_cs[2 * (o + t) + 1];
            T xa = col[a], xb = col[b];
            col[a] = cs * xa - sn * xb;
            col[b] = sn * xa + cs * xb;
        }
        D[o + pos] = value;
    }
}
