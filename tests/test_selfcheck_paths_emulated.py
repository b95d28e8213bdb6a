"""The self-checks of the rarely taken paths (``rocarray/_checks/*_paths.py``) pass with their
kernels run on the CPU by the emulator (``tests/kernel_emu.py``, NVIDIA's 32-lane target), so the
sanitized workload on the GPU starts from checks that pass. Parts whose kernels use inline PTX
(the wgmma gemms, the sm_90 histogram and staged-scan paths) cannot run here: the GPU runs them."""

import pytest

from kernel_emu import Unsupported, emulated_device  # noqa: F401 (the fixture)
from launchfake import fake_device  # noqa: F401 (the fixture)
from selfcheck_launches import extend_standin

from rocarray._core import harness


@pytest.fixture
def device(emulated_device, monkeypatch):  # noqa: F811
    extend_standin(emulated_device.cupy, monkeypatch)
    return emulated_device


def _run(part, rng):
    try:
        part(rng)
    except Unsupported as exc:  # a kernel with inline PTX
        pytest.skip(f"the emulator cannot run it: {str(exc).splitlines()[0]}")


@pytest.mark.parametrize("name", ["rocfft.pow2_real_paths", "rocsolver.batched_paths", "miopen.rare_paths"])
def test_whole_check_passes(device, rng, name):
    harness.load_all()
    check = {c.name: c for c in harness.self_checks()}[name]
    _run(check.run, rng)


def test_rocblas_banded_packed_and_split_k_parts_pass(device, rng):
    from rocarray._checks import rocblas_paths

    _run(rocblas_paths._gbmv, rng)
    _run(rocblas_paths._packed_batches, rng)
    _run(lambda r: rocblas_paths._matmul(r, 131, 97, 3001, "float32", "float32 gemm, split along k"), rng)


def test_prim_line_scan_and_unique_bitmap_parts_pass(device, rng):
    from rocarray._checks import prim_paths

    _run(prim_paths._line_scan, rng)
    _run(prim_paths._unique_bitmap, rng)
