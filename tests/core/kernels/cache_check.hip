// A test-only source for the kernel binary cache: one template, one extern "C" kernel.
template <typename T>
__global__ void ra_test_cache_scale(T* x, T s, ra_i64 n) {
    const ra_i64 i = (ra_i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

extern "C" __global__ void ra_test_cache_plain(float* x) { x[threadIdx.x] = 0.0f; }
