// im2col and col2im: the patch matrices of rocarray.miopen's "gemm" convolution algorithm.
//
// T: ra_half, ra_bfloat16, float, double (copies; col2im sums in ra_traits<T>::acc). CL: channels
// last or first (see conv_direct.hip for the tensor shapes). A launch covers images
// n0 .. n0 + nimg - 1 and the input channels of group g; P = output positions per image, R =
// filter taps, cpg = input channels per group. The patch matrix ("col") is row-major:
//   channels first: (nimg, cpg * R, P), element (i, c * R + r, p)   (a gemm operand per image)
//   channels last:  (nimg * P, R * cpg), element (i * P + p, r * cpg + c)   (one operand for all)
// holding x(n0 + i, g * cpg + c, p * stride - pad + r * dilation), zero outside the input.
// Kernels:
//   ra_miopen_im2col  writes every element of col
//   ra_miopen_col2im  dx(n, c, q) = sum of the col elements that im2col would read from (n, c, q):
//                     a thread per element of dx (the images and channels of the launch), no
//                     atomics (the data gradient from the gemm's col = W^T dy)

#define RA_IM2COL_BLOCK 256

// Sizes of one problem (rocarray/miopen/_conv_direct.py's GEOMETRY, field for field).
struct ra_conv_geometry {
    ra_i64 n, c, k, groups, cpg, kpg;
    ra_i64 in[3], flt[3], out[3], stride[3], pad[3], dil[3];
};

template <typename T, bool CL>
__global__ void RA_LAUNCH_BOUNDS(RA_IM2COL_BLOCK)
ra_miopen_im2col(ra_conv_geometry g, const T* RA_RESTRICT x, T* RA_RESTRICT col, ra_i64 n0, ra_i64 nimg,
                 ra_i64 group) {
    const ra_i64 P = g.out[0] * g.out[1] * g.out[2];
    const ra_i64 R = g.flt[0] * g.flt[1] * g.flt[2];
    const ra_i64 total = nimg * P * R * g.cpg;
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 i, c, r, p;
        if (CL) {
            const ra_i64 cr = e % (R * g.cpg), row = e / (R * g.cpg);
            r = cr / g.cpg; c = cr - r * g.cpg;
            i = row / P; p = row - i * P;
        } else {
            p = e % P;
            const ra_i64 rest = e / P;
            const ra_i64 cr = rest % (g.cpg * R);
            i = rest / (g.cpg * R);
            c = cr / R; r = cr - c * R;
        }
        const ra_i64 ow = p % g.out[2], oh = (p / g.out[2]) % g.out[1], od = p / (g.out[2] * g.out[1]);
        const ra_i64 fw = r % g.flt[2], fh = (r / g.flt[2]) % g.flt[1], fd = r / (g.flt[2] * g.flt[1]);
        const ra_i64 id = od * g.stride[0] - g.pad[0] + fd * g.dil[0];
        const ra_i64 ih = oh * g.stride[1] - g.pad[1] + fh * g.dil[1];
        const ra_i64 iw = ow * g.stride[2] - g.pad[2] + fw * g.dil[2];
        T v = ra_traits<T>::from_acc(ra_traits<T>::zero());
        if (id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2]) {
            const ra_i64 n = n0 + i, ch = group * g.cpg + c;
            const ra_i64 s = (id * g.in[1] + ih) * g.in[2] + iw;
            const ra_i64 S = g.in[0] * g.in[1] * g.in[2];
            v = x[CL ? (n * S + s) * g.c + ch : (n * g.c + ch) * S + s];
        }
        col[e] = v;
    }
}

template <typename T, bool CL>
__global__ void RA_LAUNCH_BOUNDS(RA_IM2COL_BLOCK)
ra_miopen_col2im(ra_conv_geometry g, const T* RA_RESTRICT col, T* RA_RESTRICT dx, ra_i64 n0, ra_i64 nimg,
                 ra_i64 group) {
    typedef typename ra_traits<T>::acc A;
    const ra_i64 P = g.out[0] * g.out[1] * g.out[2];
    const ra_i64 R = g.flt[0] * g.flt[1] * g.flt[2];
    const ra_i64 S = g.in[0] * g.in[1] * g.in[2];
    const ra_i64 total = nimg * g.cpg * S;
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 i, c, s;
        if (CL) {
            c = e % g.cpg;
            const ra_i64 rest = e / g.cpg;
            s = rest % S; i = rest / S;
        } else {
            s = e % S;
            const ra_i64 rest = e / S;
            c = rest % g.cpg; i = rest / g.cpg;
        }
        const ra_i64 iw = s % g.in[2], ih = (s / g.in[2]) % g.in[1], id = s / (g.in[2] * g.in[1]);
        A acc = ra_traits<T>::zero();
        for (ra_i64 fd = 0; fd < g.flt[0]; ++fd) {
            const ra_i64 td = id + g.pad[0] - fd * g.dil[0];
            if (td < 0 || td % g.stride[0]) continue;
            const ra_i64 od = td / g.stride[0];
            if (od >= g.out[0]) continue;
            for (ra_i64 fh = 0; fh < g.flt[1]; ++fh) {
                const ra_i64 th = ih + g.pad[1] - fh * g.dil[1];
                if (th < 0 || th % g.stride[1]) continue;
                const ra_i64 oh = th / g.stride[1];
                if (oh >= g.out[1]) continue;
                for (ra_i64 fw = 0; fw < g.flt[2]; ++fw) {
                    const ra_i64 tw = iw + g.pad[2] - fw * g.dil[2];
                    if (tw < 0 || tw % g.stride[2]) continue;
                    const ra_i64 ow = tw / g.stride[2];
                    if (ow >= g.out[2]) continue;
                    const ra_i64 p = (od * g.out[1] + oh) * g.out[2] + ow;
                    const ra_i64 r = (fd * g.flt[1] + fh) * g.flt[2] + fw;
                    acc += ra_traits<T>::to_acc(col[CL ? (i * P + p) * (R * g.cpg) + r * g.cpg + c
                                                       : (i * g.cpg * R + c * R + r) * P + p]);
                }
            }
        }
        const ra_i64 n = n0 + i, ch = group * g.cpg + c;
        dx[CL ? (n * S + s) * g.c + ch : (n * g.c + ch) * S + s] = ra_traits<T>::from_acc(acc);
    }
}
