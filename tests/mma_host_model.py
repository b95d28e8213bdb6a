"""Host models of the matrix instructions for the kernel emulator, which compiles neither inline
PTX nor AMD's MFMA builtins: NVIDIA's ``mma.sync.aligned.m16n8k16`` and AMD's
``v_mfma_f32_32x32x8`` (float32 accumulation, 16-bit inputs). The tests of kernels built on them
swap their vendor primitives block for C++ text that computes the same fragment products on the
CPU.

Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16"), g = lane / 4, t = lane % 4: A (16 x 16,
row) element a_i (i = 0..7, two per register, low half first) at row g + 8 ((i / 2) % 2), column
2 t + (i % 2) + 8 (i / 4); B (16 x 8, col) element b_i (i = 0..3) at row 2 t + (i % 2) + 8 (i / 2),
column g; C/D element d_i at row g + 8 (i / 2), column 2 t + (i % 2). The warp's operands meet in
shared memory (a block of at most 8 warps), and each lane sums its four outputs in float.

MFMA 32x32x8 (wave64): lane l holds A(l % 32, 4 (l / 32) + e) and B(4 (l / 32) + e, l % 32) in
element e (16 bits each, low first) of its 64-bit operand, and D(8 (r / 4) + 4 (l / 32) + r % 4,
l % 32) in accumulator r (a block of at most 4 waves).
"""

_MMA_16816 = r"""
template <typename T> struct RA_MMA_NAME {
    static RA_DEVICE float value(ra_u32 reg, int half) {
        T v; v.bits = (ra_u16)(half ? reg >> 16 : reg & 0xffffu); return ra_traits<T>::to_acc(v);
    }
    static RA_DEVICE void run(float (&d)[4], const ra_u32 (&a)[4], ra_u32 b0, ra_u32 b1) {
        __shared__ ra_u32 exchange[8][32][6];
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        for (int q = 0; q < 4; ++q) exchange[warp][lane][q] = a[q];
        exchange[warp][lane][4] = b0;
        exchange[warp][lane][5] = b1;
        __syncwarp();
        float A[16][16], B[16][8];
        for (int s = 0; s < 32; ++s) {
            const int g = s / 4, t = s % 4;
            for (int i = 0; i < 8; ++i)
                A[g + 8 * ((i / 2) % 2)][2 * t + (i % 2) + 8 * (i / 4)] = value(exchange[warp][s][i / 2], i % 2);
            for (int i = 0; i < 4; ++i)
                B[2 * t + (i % 2) + 8 * (i / 2)][g] = value(exchange[warp][s][4 + i / 2], i % 2);
        }
        __syncwarp();
        const int g = lane / 4, t = lane % 4;
        for (int i = 0; i < 4; ++i) {
            const int row = g + 8 * (i / 2), col = 2 * t + (i % 2);
            float sum = 0.0f;
            for (int k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
            d[i] += sum;
        }
    }
};
"""


def mma_16816(name):
    """C++ text of ``template <typename T> struct <name>`` with ``value(reg, half)`` and
    ``run(d, a, b0, b1)``: the model of one m16n8k16 product (``d += A B``) of a warp."""
    return _MMA_16816.replace("RA_MMA_NAME", name)


_MFMA_32X32X8 = r"""
struct RA_VEC_NAME {
    float v[16];
    RA_DEVICE float& operator[](int i) { return v[i]; }
    RA_DEVICE float operator[](int i) const { return v[i]; }
};
template <typename T> struct RA_MFMA_NAME {
    static RA_DEVICE float value(ra_u64 reg, int e) {
        T v; v.bits = (ra_u16)(reg >> (16 * e)); return ra_traits<T>::to_acc(v);
    }
    static RA_DEVICE RA_VEC_NAME run(ra_u64 a, ra_u64 b, RA_VEC_NAME d) {
        __shared__ ra_u64 exchange[4][64][2];
        const int wave = threadIdx.x / 64, lane = threadIdx.x % 64;
        exchange[wave][lane][0] = a;
        exchange[wave][lane][1] = b;
        __syncwarp();
        float A[32][8], B[8][32];
        for (int s = 0; s < 64; ++s)
            for (int e = 0; e < 4; ++e) {
                A[s % 32][4 * (s / 32) + e] = value(exchange[wave][s][0], e);
                B[4 * (s / 32) + e][s % 32] = value(exchange[wave][s][1], e);
            }
        __syncwarp();
        for (int r = 0; r < 16; ++r) {
            const int i = 8 * (r / 4) + 4 * (lane / 32) + r % 4, j = lane % 32;
            float sum = 0.0f;
            for (int k = 0; k < 8; ++k) sum += A[i][k] * B[k][j];
            d[r] += sum;
        }
        return d;
    }
};
"""


def mfma_32x32x8(name, vector):
    """C++ text of the 16-float accumulator ``struct <vector>`` and of ``template <typename T>
    struct <name>`` with ``value(reg, e)`` and ``run(a, b, d)``: the model of one 32x32x8 product
    (``d + A B``, returned) of a wavefront."""
    return _MFMA_32X32X8.replace("RA_MFMA_NAME", name).replace("RA_VEC_NAME", vector)
