"""A host model of NVIDIA's ``mma.sync.aligned.m16n8k16`` (float32 accumulation, 16-bit inputs)
for the kernel emulator, which cannot compile inline PTX: the tests of kernels built on the
instruction swap their vendor primitives block for C++ text that computes the same fragment
products on the CPU.

Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16"), g = lane / 4, t = lane % 4: A (16 x 16,
row) element a_i (i = 0..7, two per register, low half first) at row g + 8 ((i / 2) % 2), column
2 t + (i % 2) + 8 (i / 4); B (16 x 8, col) element b_i (i = 0..3) at row 2 t + (i % 2) + 8 (i / 2),
column g; C/D element d_i at row g + 8 (i / 2), column 2 t + (i % 2). The warp's operands meet in
shared memory (a block of at most 8 warps), and each lane sums its four outputs in float.
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
