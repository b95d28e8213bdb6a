"""Users' kernels with rocarray's portability headers: argument rules and the offline compile of
a user's pasted source on the CPU; on the GPU, each kernel class run and compared with NumPy, the
binary cache reused by a second object of the same source, launches seen by a profile."""

import numpy as np
import pytest

from conftest import random_array, to_device, to_host

import rocarray as ra
from rocarray._core import backend, compile as _compile, launch as _launch

SCALE = r'''
extern "C" __global__ void scale(float* x, float a, long long n) {
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) x[i] *= a;
}
'''

# each warp writes its lanes' sum of x into every lane (a shuffle tree over RA_WARP_SIZE lanes)
WARP_SUM = r'''
template <typename T>
__global__ void warp_sum(const T* x, T* y, long long n) {
    ra_i64 i = ra_global_thread_id();
    T v = i < n ? x[i] : T(0);
    for (int offset = RA_WARP_SIZE / 2; offset > 0; offset /= 2) v += ra_shfl_xor(v, offset);
    if (i < n) y[i] = v;
}
'''


def test_a_user_source_gets_the_headers_and_keeps_its_line_numbers():
    text = _compile.user_source("mine.cu", SCALE)
    assert text.startswith(_compile.header_text())
    assert '#line 1 "mine.cu"\n' + SCALE in text


@pytest.mark.parametrize("kwargs, error, match", [
    ({"code": "#include <cstdio>\n"}, ValueError, "line 1 includes a header"),
    ({}, TypeError, "exactly one of code and path"),
    ({"code": SCALE, "path": "x.cu"}, TypeError, "exactly one of code and path"),
    ({"code": b"bytes"}, TypeError, "source text"),
    ({"code": SCALE, "options": ("-DX", 3)}, TypeError, "options must be strings"),
    ({"code": SCALE, "jitify": True}, NotImplementedError, "jitify=True is not supported"),
    ({"code": SCALE, "backend": "nvcc"}, NotImplementedError, "backend='nvcc'"),
])
def test_raw_module_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        ra.RawModule(**kwargs)


def test_raw_kernel_argument_errors():
    with pytest.raises(TypeError, match="name must be"):
        ra.RawKernel(SCALE, "")
    with pytest.raises(NotImplementedError, match="enable_cooperative_groups"):
        ra.RawKernel(SCALE, "scale", enable_cooperative_groups=True)
    kernel = ra.RawKernel(SCALE, "scale", options="-DUNUSED=1")
    assert kernel.name == "scale" and kernel.options == ("-DUNUSED=1",) and kernel.code == SCALE


def test_a_path_source_is_read(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text(SCALE)
    module = ra.RawModule(path=str(path), name_expressions=["a<int>"])
    assert module.code == SCALE and module.label == str(path) and module.name_expressions == ("a<int>",)


def test_the_user_source_compiles_offline_for_sm_90():
    if _compile.nvrtc() is None:
        pytest.skip("NVRTC is not installed (pip install nvidia-cuda-nvrtc)")
    target = backend.Target("cuda", "sm_90", 32)
    opts = _compile.options(target) + ("-arch=sm_90", "--device-as-default-execution-space")
    names = ["warp_sum<float>", "warp_sum<double>"]
    lowered, binary = _compile.nvrtc_compile("user.cu", target, _compile.user_source("user.cu", WARP_SUM + SCALE),
                                             opts, names)
    assert set(lowered) == set(names) and len(binary) > 0


def test_a_user_launch_reports_to_the_profiler(monkeypatch):
    calls, seen = [], []

    class Recorder:
        def begin(self, *a):
            seen.append(a)
            return 1

        def end(self, token):
            seen.append("end")

    def function(grid, block, args, shared_mem=0):
        calls.append((grid, block, args, shared_mem))

    monkeypatch.setattr(_launch, "observer", Recorder())
    _launch.launch_with_cupy_arguments(function, (2,), (64,), (1, 2.0), 16, name="ra_user_k")
    assert calls == [((2,), (64,), (1, 2.0), 16)]
    assert seen == [("ra_user_k", (2,), (64,), 16), "end"]


@pytest.mark.gpu
def test_raw_kernel_on_the_gpu(rng):
    x = random_array(rng, 100_003, "float32")
    dx = to_device(x)
    kernel = ra.RawKernel(SCALE, "scale")
    kernel((64,), (256,), (dx, np.float32(2.5), np.int64(x.size)))
    np.testing.assert_array_equal(to_host(dx), x * np.float32(2.5))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_raw_module_templates_on_the_gpu_use_the_device_warp_size(rng, dtype):
    n = 1000
    x = random_array(rng, n, dtype)
    module = ra.RawModule(code=WARP_SUM, name_expressions=[f"warp_sum<{'float' if dtype == 'float32' else 'double'}>"])
    kernel = module.get_function(module.name_expressions[0])
    dy = to_device(np.full(n, np.nan, dtype))
    kernel((4,), (256,), (to_device(x), dy, np.int64(n)))
    warp = backend.device_info().warp_size
    padded = np.zeros(-(-n // warp) * warp, np.float64)
    padded[:n] = x
    want = np.repeat(padded.reshape(-1, warp).sum(axis=1), warp)[:n]
    np.testing.assert_allclose(to_host(dy), want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-5)


@pytest.mark.gpu
def test_a_second_object_of_the_same_source_loads_the_compiled_module():
    first = ra.RawKernel(SCALE, "scale").function()
    key_count = len(_compile._user_modules)
    again = ra.RawKernel(SCALE, "scale").function()
    assert len(_compile._user_modules) == key_count
    assert again is not None and first is not None


@pytest.mark.gpu
def test_elementwise_and_reduction_kernels_see_the_headers(rng):
    x = to_device(random_array(rng, 10_001, "float64"))
    lane = ra.ElementwiseKernel("T x", "int32 y", "y = (int)(i % RA_WARP_SIZE)", "ra_test_lane")
    warp = backend.device_info().warp_size
    np.testing.assert_array_equal(to_host(lane(x)), np.arange(x.size) % warp)
    twice = ra.ElementwiseKernel("T x", "T y", "y = twice(x)", "ra_test_twice",
                                 preamble="template <typename T> RA_DEVICE T twice(T v) { return v + v; }")
    np.testing.assert_array_equal(to_host(twice(x)), 2 * to_host(x))
    total = ra.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "ra_test_sum")
    np.testing.assert_allclose(float(total(x)), float(np.sum(to_host(x))), rtol=1e-12)
    with ra.profile() as prof:
        lane(x)
    assert [r.name for r in prof.rows] == ["ra_user_ra_test_lane"]


@pytest.mark.parametrize("target, wanted", [
    (backend.Target("cuda", "sm_90", 32), ("#define RA_CUDA 1\n", "#define RA_WARP_SIZE 32\n")),
    (backend.Target("hip", "gfx90a", 64), ("#define RA_HIP 1\n", "#define RA_WARP_SIZE 64\n")),
])
def test_generated_kernels_get_the_defines_as_preamble_lines(target, wanted):
    from rocarray._user import kernels as _kernels

    text = _kernels._header_preamble(target, "int user_line;")
    assert all(line in text for line in wanted)
    assert text.endswith("int user_line;")
    assert "-arch" not in text
