"""The grid-stride kernels of ``convert.hip`` run on the CPU: compiled with the host C++ compiler
behind a small stand-in for the prelude (grid-stride loops run as 1, 3 and 7 sequential threads,
``atomicOr`` a plain or) and checked on hand-made matrices with empty rows, duplicates, unsorted
rows, C and F order, bool and complex sums, and every status bit of the COO check. The block-level
kernels of the source (the row expansion and the CSR check over merge-path tiles) only compile
here; they run in the kernel emulator (``test_emulated_convert.py``). The GPU tests check the
kernels against SciPy on the device."""

import shutil
import subprocess
from importlib import resources

import pytest

SHIM = r"""
#include <cstdint>
#include <cstdio>
#include <complex>
#define __global__
#define __restrict__
#define RA_DEVICE inline
#define RA_LAUNCH_BOUNDS(x)
typedef long long ra_i64; typedef unsigned int ra_u32; typedef int ra_i32;
typedef signed char ra_i8; typedef unsigned char ra_u8; typedef unsigned long long ra_u64;
static ra_i64 g_tid = 0, g_threads = 1;
inline ra_i64 ra_global_thread_id() { return g_tid; }
inline ra_i64 ra_grid_threads() { return g_threads; }
inline void atomicOr(ra_u32* p, ra_u32 v) { *p |= v; }
// parsed, never run: the block-level kernels
#define __shared__ static
struct ra_dim3 { unsigned x, y, z; };
static ra_dim3 threadIdx, blockIdx, gridDim;
inline void ra_syncthreads() {}
template <typename R> struct ra_complex { R re, im; };
template <typename R> ra_complex<R> operator+(ra_complex<R> a, ra_complex<R> b) { return {a.re + b.re, a.im + b.im}; }
typedef ra_complex<double> ra_c128;
// run a kernel as g_threads sequential "threads"
#define LAUNCH(threads, call) do { g_threads = threads; for (g_tid = 0; g_tid < threads; ++g_tid) call; } while (0)
"""

MAIN = r"""
#include <vector>
#include <cassert>
int main() {
    // 4 x 5, rows: [0,2) [2,2) [2,5) [5,6): row 1 empty; row 2 has a duplicate (3,3) and is unsorted? (4,3,3)
    std::vector<int> indptr = {0, 2, 2, 5, 6};
    std::vector<int> idx = {1, 3, 4, 3, 3, 0};
    std::vector<double> data = {1, 2, 3, 4, 5, 6};
    for (int threads : {1, 3, 7}) {
        std::vector<int> srow = {0, 0, 2, 2, 2, 3}, scol = {1, 3, 3, 3, 4, 0};
        bool head[6];
        LAUNCH(threads, ra_rocsparse_flag_heads<int>(srow.data(), scol.data(), 6, head));
        bool eh[6] = {1, 1, 1, 0, 1, 1};
        for (int k = 0; k < 6; ++k) assert(head[k] == eh[k]);
        std::vector<ra_i64> starts = {0, 1, 2, 4, 5};
        std::vector<double> out(5, -1);
        LAUNCH(threads, ra_rocsparse_sum_runs<double>(data.data(), starts.data(), 5, 6, out.data()));
        double es[5] = {1, 2, 3 + 4, 5, 6};
        for (int g = 0; g < 5; ++g) assert(out[g] == es[g]);
        bool bd[3] = {true, false, true}; ra_i64 bs[2] = {0, 1}; bool bo[2];
        LAUNCH(threads, ra_rocsparse_sum_runs<bool>(bd, bs, 2, 3, bo));
        assert(bo[0] == true && bo[1] == true);
        ra_c128 cd[3] = {{1, 2}, {3, 4}, {5, 6}}; ra_c128 co[2];
        LAUNCH(threads, ra_rocsparse_sum_runs<ra_c128>(cd, bs, 2, 3, co));
        assert(co[0].re == 1 && co[0].im == 2 && co[1].re == 8 && co[1].im == 10);
        // dense, C order (row stride 5) and F order (row stride 1, col stride 4)
        std::vector<double> dc(20, 0), df(20, 0);
        LAUNCH(threads, (ra_rocsparse_csr2dense<double, int>(4, indptr.data(), idx.data(), data.data(),
                                                             dc.data(), 5, 1)));
        LAUNCH(threads, (ra_rocsparse_csr2dense<double, int>(4, indptr.data(), idx.data(), data.data(),
                                                             df.data(), 1, 4)));
        assert(dc[0 * 5 + 1] == 1 && dc[0 * 5 + 3] == 2 && dc[2 * 5 + 4] == 3 && dc[2 * 5 + 3] == 9);
        assert(dc[3 * 5 + 0] == 6);
        for (int i = 0; i < 4; ++i) for (int j = 0; j < 5; ++j) assert(dc[i * 5 + j] == df[i + j * 4]);
        double total = 0; for (double v : dc) total += v; assert(total == 21);
        // COO check
        std::vector<long long> r = {0, 0, 1, 3}, c = {1, 1, 0, 2};
        ra_u32 s2 = 0; LAUNCH(threads, ra_rocsparse_check_coo<long long>(3, 3, r.data(), c.data(), 4, &s2));
        assert(s2 == (16u | 64u));
        std::vector<long long> r2 = {1, 0}, c2 = {0, -1};
        s2 = 0; LAUNCH(threads, ra_rocsparse_check_coo<long long>(3, 3, r2.data(), c2.data(), 2, &s2));
        assert(s2 == (8u | 2u));
    }
    printf("all kernel logic checks passed\n");
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="no host C++ compiler (g++)")
def test_convert_kernels_on_the_host(tmp_path):
    source = resources.files("rocarray").joinpath("_kernels/rocsparse/convert.hip").read_text()
    cpp = tmp_path / "convert_host.cpp"
    cpp.write_text(SHIM + source + MAIN)
    exe = tmp_path / "convert_host"
    subprocess.run(["g++", "-std=c++17", "-O1", "-o", str(exe), str(cpp)], check=True, capture_output=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0 and "all kernel logic checks passed" in out.stdout, out.stderr
