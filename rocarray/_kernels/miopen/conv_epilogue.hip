// The convolution epilogue after an algorithm that does not fuse it: y = act(y + bias[channel]),
// in place, in ra_traits<T>::acc (float for the 16-bit types), one rounding.
//
// T: ra_half, ra_bfloat16, float, double. The channel of element i is (i / inner) % channels
// (channels first: inner = the spatial size; channels last: inner = 1). bias may be null.
// act: ra_activation's codes (0 none, 1 relu, 2 gelu (erf), 3 silu, 4 sigmoid, 5 tanh) and
// 6 leaky_relu with slope `slope` (rocarray/miopen/_conv_direct.py's ACTIVATIONS).

#define RA_EPILOGUE_BLOCK 256

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_EPILOGUE_BLOCK)
ra_miopen_conv_epilogue(ra_i64 total, ra_i64 inner, ra_i64 channels, T* y, const T* RA_RESTRICT bias, int act,
                        double slope) {
    typedef typename ra_traits<T>::acc A;
    for (ra_i64 i = ra_global_thread_id(); i < total; i += ra_grid_threads()) {
        A v = ra_traits<T>::to_acc(y[i]);
        if (bias != nullptr) v += ra_traits<T>::to_acc(bias[(i / inner) % channels]);
        if (act == 6) v = v < A(0) ? v * A(slope) : v;
        else v = ra_activation(v, act);
        y[i] = ra_traits<T>::from_acc(v);
    }
}
