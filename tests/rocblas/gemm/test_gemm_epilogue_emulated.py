"""The fused bias + activation epilogue of the SIMT gemm tiles (``rocblas/gemm.hip``), run on the
CPU by the kernel emulator (``tests/kernel_emu.py``) on both targets: NVIDIA's 32 lanes and AMD's
64-lane wavefront. Every activation goes through the tile epilogue's out-of-line call
(``ra_activation_tile``), relu inline, and the plain product through the copy without activation;
each is checked against NumPy/SciPy in float64 on fresh inputs of odd sizes. CPU tests: skipped
where g++ is missing. (The float64 matrix-instruction tiles use inline PTX: the GPU runs them.)"""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device, emulated_either_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated devices build on)
from conftest import assert_close, random_array, wide
from level3_host import activation_reference

import rocarray.rocblas as rocblas


@pytest.fixture
def device(emulated_either_device, monkeypatch):
    from rocarray.rocblas._gemm import tiles

    monkeypatch.setattr(tiles, "has_f64_mma", lambda info: False)  # the emulator has no matrix instructions
    return emulated_either_device


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("activation", [None, "relu", "gelu", "silu", "sigmoid", "tanh"])
def test_tile_epilogue_matches_numpy(device, rng, dtype, activation):
    """C := act(0.5 A B - C + bias) on column-major buffers of odd sizes, against the host."""
    m, n, k = 37, 29, 19
    a, b = random_array(rng, m * k, dtype), random_array(rng, k * n, dtype)
    c, bias = random_array(rng, m * n, dtype), random_array(rng, m, dtype)
    dc = device.array(c)
    rocblas.gemm("N", "N", m, n, k, 0.5, device.array(a), m, device.array(b), k, -1.0, dc, m,
                 bias=device.array(bias), activation=activation)
    assert [launch for launch in device.names() if "ra_rocblas_gemm<" in launch], "the SIMT tile did not run"
    am, bm, cm = wide(a).reshape(k, m).T, wide(b).reshape(n, k).T, wide(c).reshape(n, m).T
    pre = 0.5 * am @ bm - cm + wide(bias)[:, None]
    scale = float(np.max(0.5 * np.abs(am) @ np.abs(bm) + np.abs(cm) + np.abs(wide(bias))[:, None]))
    got = wide(np.asarray(device.cupy.asnumpy(dc))).reshape(n, m).T
    assert_close(got, activation_reference(activation, pre), dtype, k, atol_scale=1.2 * scale)
