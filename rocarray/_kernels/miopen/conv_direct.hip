// Direct convolution, rocarray.miopen's "direct" algorithm: every direction, both layouts, 1 to 3
// spatial axes (fewer axes run as three with leading axes of size 1), groups, stride, dilation and
// padding. The reference every other algorithm is checked against, and the fallback for problems
// no faster algorithm takes.
//
// T: ra_half, ra_bfloat16, float, double; sums in ra_traits<T>::acc (float for the 16-bit types).
// CL: channels last (x: N D H W C, w: K FD FH FW C/g, y: N OD OH OW K) or channels first
// (x: N C D H W, w: K C/g FD FH FW, y: N K OD OH OW). Output position o of an axis reads input
// position o * stride - pad + r * dilation for tap r; positions outside the input read zero.
// Kernels (each writes every element of its output, reading nothing it writes):
//   ra_miopen_conv_direct_fwd        y, a thread per output element, bias and activation fused
//   ra_miopen_conv_direct_bwd_data   dx, a thread per input element over the outputs it fed
//   ra_miopen_conv_direct_bwd_weights  dw, a block per weight element, block-wide sum over the
//                                      batch and the output positions (fixed order: deterministic)

#define RA_CONV_BLOCK 256

// Sizes of one problem (rocarray/miopen/_conv_direct.py's GEOMETRY, field for field).
struct ra_conv_geometry {
    ra_i64 n, c, k, groups, cpg, kpg;  // cpg, kpg: input and output channels per group
    ra_i64 in[3], flt[3], out[3], stride[3], pad[3], dil[3];
};

// Offset of element (n, ch, d, h, w) of an activation tensor of nch channels and spatial size
// (s0, s1, s2); the weights are the same walk with n = k and nch = C/g.
template <bool CL>
RA_DEVICE ra_i64 ra_conv_offset(ra_i64 n, ra_i64 ch, ra_i64 nch, ra_i64 s0, ra_i64 s1, ra_i64 s2, ra_i64 d,
                                ra_i64 h, ra_i64 w) {
    return CL ? (((n * s0 + d) * s1 + h) * s2 + w) * nch + ch : (((n * nch + ch) * s0 + d) * s1 + h) * s2 + w;
}

// The inverse of ra_conv_offset.
template <bool CL>
RA_DEVICE void ra_conv_decode(ra_i64 i, ra_i64 nch, ra_i64 s0, ra_i64 s1, ra_i64 s2, ra_i64& n, ra_i64& ch,
                              ra_i64& d, ra_i64& h, ra_i64& w) {
    // ra_divmod_i64: the 32-bit division where the values fit (the decode runs per element)
    ra_i64 q;
    if (CL) {
        ra_divmod_i64(i, nch, q, ch);
        ra_divmod_i64(q, s2, q, w);
        ra_divmod_i64(q, s1, q, h);
        ra_divmod_i64(q, s0, n, d);
    } else {
        ra_divmod_i64(i, s2, q, w);
        ra_divmod_i64(q, s1, q, h);
        ra_divmod_i64(q, s0, q, d);
        ra_divmod_i64(q, nch, n, ch);
    }
}

template <bool CL>
RA_DEVICE ra_i64 ra_conv_w_offset(const ra_conv_geometry& g, ra_i64 k, ra_i64 cl, ra_i64 fd, ra_i64 fh,
                                  ra_i64 fw) {
    return ra_conv_offset<CL>(k, cl, g.cpg, g.flt[0], g.flt[1], g.flt[2], fd, fh, fw);
}

// The fused epilogue of the forward: v + bias[k] (bias may be null), then the activation (act:
// ra_activation's codes, 6 leaky_relu with `slope`; conv_epilogue.hip's).
template <typename T, typename A>
RA_DEVICE A ra_conv_epilogue(A v, const T* RA_RESTRICT bias, ra_i64 k, int act, double slope) {
    if (bias != nullptr) v += ra_traits<T>::to_acc(bias[k]);
    if (act == 6) return v < A(0) ? v * A(slope) : v;
    return act == 0 ? v : ra_activation(v, act);
}

template <typename T, bool CL>
__global__ void RA_LAUNCH_BOUNDS(RA_CONV_BLOCK)
ra_miopen_conv_direct_fwd(ra_conv_geometry g, const T* RA_RESTRICT x, const T* RA_RESTRICT w, T* RA_RESTRICT y,
                          const T* RA_RESTRICT bias, int act, double slope) {
    typedef typename ra_traits<T>::acc A;
    const ra_i64 total = g.n * g.k * g.out[0] * g.out[1] * g.out[2];
    for (ra_i64 i = ra_global_thread_id(); i < total; i += ra_grid_threads()) {
        ra_i64 n, k, od, oh, ow;
        ra_conv_decode<CL>(i, g.k, g.out[0], g.out[1], g.out[2], n, k, od, oh, ow);
        const ra_i64 c0 = (k / g.kpg) * g.cpg;
        A acc = ra_traits<T>::zero();
        for (ra_i64 fd = 0; fd < g.flt[0]; ++fd) {
            const ra_i64 id = od * g.stride[0] - g.pad[0] + fd * g.dil[0];
            if (id < 0 || id >= g.in[0]) continue;
            for (ra_i64 fh = 0; fh < g.flt[1]; ++fh) {
                const ra_i64 ih = oh * g.stride[1] - g.pad[1] + fh * g.dil[1];
                if (ih < 0 || ih >= g.in[1]) continue;
                for (ra_i64 fw = 0; fw < g.flt[2]; ++fw) {
                    const ra_i64 iw = ow * g.stride[2] - g.pad[2] + fw * g.dil[2];
                    if (iw < 0 || iw >= g.in[2]) continue;
                    for (ra_i64 cl = 0; cl < g.cpg; ++cl) {
                        const A xv = ra_traits<T>::to_acc(
                            x[ra_conv_offset<CL>(n, c0 + cl, g.c, g.in[0], g.in[1], g.in[2], id, ih, iw)]);
                        const A wv = ra_traits<T>::to_acc(w[ra_conv_w_offset<CL>(g, k, cl, fd, fh, fw)]);
                        acc += xv * wv;
                    }
                }
            }
        }
        y[i] = ra_traits<T>::from_acc(ra_conv_epilogue(acc, bias, k, act, slope));
    }
}

// dx(n, c, i) = sum over the taps r and the output channels k of c's group of
// dy(n, k, o) w(k, c, r), for the o with o * stride = i + pad - r * dilation (when it divides).
template <typename T, bool CL>
__global__ void RA_LAUNCH_BOUNDS(RA_CONV_BLOCK)
ra_miopen_conv_direct_bwd_data(ra_conv_geometry g, const T* RA_RESTRICT dy, const T* RA_RESTRICT w,
                               T* RA_RESTRICT dx) {
    typedef typename ra_traits<T>::acc A;
    const ra_i64 total = g.n * g.c * g.in[0] * g.in[1] * g.in[2];
    for (ra_i64 i = ra_global_thread_id(); i < total; i += ra_grid_threads()) {
        ra_i64 n, c, id, ih, iw;
        ra_conv_decode<CL>(i, g.c, g.in[0], g.in[1], g.in[2], n, c, id, ih, iw);
        const ra_i64 group = c / g.cpg, cl = c - group * g.cpg, k0 = group * g.kpg;
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
                    for (ra_i64 kk = 0; kk < g.kpg; ++kk) {
                        const A dv = ra_traits<T>::to_acc(
                            dy[ra_conv_offset<CL>(n, k0 + kk, g.k, g.out[0], g.out[1], g.out[2], od, oh, ow)]);
                        const A wv = ra_traits<T>::to_acc(w[ra_conv_w_offset<CL>(g, k0 + kk, cl, fd, fh, fw)]);
                        acc += dv * wv;
                    }
                }
            }
        }
        dx[i] = ra_traits<T>::from_acc(acc);
    }
}

// dw(k, c, r) = sum over n and the output positions o of x(n, c, o * stride - pad + r * dilation)
// dy(n, k, o): a block per weight element (grid-stride over the elements), the threads striding
// over (n, o) with the output's fastest axis fastest.
template <typename T, bool CL>
__global__ void RA_LAUNCH_BOUNDS(RA_CONV_BLOCK)
ra_miopen_conv_direct_bwd_weights(ra_conv_geometry g, const T* RA_RESTRICT x, const T* RA_RESTRICT dy,
                                  T* RA_RESTRICT dw) {
    typedef typename ra_traits<T>::acc A;
    __shared__ A scratch[RA_CONV_BLOCK / RA_WARP_SIZE];
    const ra_i64 total = g.k * g.cpg * g.flt[0] * g.flt[1] * g.flt[2];
    const ra_i64 per_image = g.out[0] * g.out[1] * g.out[2];
    const ra_i64 terms = g.n * per_image;
    for (ra_i64 e = blockIdx.x; e < total; e += gridDim.x) {
        ra_i64 k, cl, fd, fh, fw;
        ra_conv_decode<CL>(e, g.cpg, g.flt[0], g.flt[1], g.flt[2], k, cl, fd, fh, fw);
        const ra_i64 c = (k / g.kpg) * g.cpg + cl;
        A acc = ra_traits<T>::zero();
        for (ra_i64 j = threadIdx.x; j < terms; j += RA_CONV_BLOCK) {
            const ra_i64 n = j / per_image;
            ra_i64 rest = j - n * per_image;
            const ra_i64 ow = rest % g.out[2];
            rest /= g.out[2];
            const ra_i64 oh = rest % g.out[1], od = rest / g.out[1];
            const ra_i64 id = od * g.stride[0] - g.pad[0] + fd * g.dil[0];
            const ra_i64 ih = oh * g.stride[1] - g.pad[1] + fh * g.dil[1];
            const ra_i64 iw = ow * g.stride[2] - g.pad[2] + fw * g.dil[2];
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2]) continue;
            const A xv = ra_traits<T>::to_acc(x[ra_conv_offset<CL>(n, c, g.c, g.in[0], g.in[1], g.in[2], id, ih, iw)]);
            const A dv = ra_traits<T>::to_acc(
                dy[ra_conv_offset<CL>(n, k, g.k, g.out[0], g.out[1], g.out[2], od, oh, ow)]);
            acc += xv * dv;
        }
        acc = ra_block_reduce<RA_CONV_BLOCK>(acc, ra_op_sum(), scratch);
        if (threadIdx.x == 0) dw[e] = ra_traits<T>::from_acc(acc);
        __syncthreads();  // scratch is reused by the next element
    }
}
