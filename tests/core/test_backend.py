"""Device facts: what rocarray reads from the runtime, and the errors when there is nothing to read.

CPU tests use a fake CuPy runtime (AMD and NVIDIA flavours) or simulate a missing CuPy/driver;
the GPU test checks the facts of the real device.
"""

import collections
import re
import types
from types import SimpleNamespace

import pytest

from rocarray import NoDeviceError
from rocarray._core import backend

HAVE_GPU = backend.is_available()


@pytest.fixture(autouse=True)
def fresh_device_cache():
    """Device facts are cached per process; keep fakes out of the real cache."""
    backend._read_device_info.cache_clear()
    yield
    backend._read_device_info.cache_clear()


def fake_cupy(props, count=1, is_hip=False, current=0):
    runtime = SimpleNamespace(
        is_hip=is_hip,
        getDeviceCount=lambda: count,
        getDevice=lambda: current,
        getDeviceProperties=lambda i: dict(props),
    )
    return SimpleNamespace(__version__="0.0-fake", cuda=SimpleNamespace(runtime=runtime))


MI300X = {
    "name": b"AMD Instinct MI300X", "gcnArchName": b"gfx942:sramecc+:xnack-", "warpSize": 64,
    "multiProcessorCount": 304, "sharedMemPerBlock": 65536, "l2CacheSize": 4 * 2**20,
    "totalGlobalMem": 192 * 2**30, "major": 9, "minor": 4,
}
H200 = {
    "name": b"NVIDIA H200", "warpSize": 32, "multiProcessorCount": 132, "sharedMemPerBlock": 49152,
    "l2CacheSize": 60 * 2**20, "totalGlobalMem": 141 * 2**30, "major": 9, "minor": 0,
}


# --------------------------------------------------------------------------------------------
# architecture names
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw", [b"gfx942:sramecc+:xnack-", "gfx942:sramecc+:xnack-", b"gfx942"])
def test_arch_name_drops_amd_target_features(raw):
    assert backend._arch_name({"gcnArchName": raw}, is_hip=True) == "gfx942"


def test_arch_name_falls_back_to_old_rocm_gcn_arch_number():
    assert backend._arch_name({"gcnArchName": b"", "gcnArch": 906}, is_hip=True) == "gfx906"


@pytest.mark.parametrize("major,minor,arch", [(9, 0, "sm_90"), (8, 0, "sm_80"), (10, 0, "sm_100"), (8, 9, "sm_89")])
def test_arch_name_for_nvidia_is_sm_major_minor(major, minor, arch):
    assert backend._arch_name({"major": major, "minor": minor}, is_hip=False) == arch


# --------------------------------------------------------------------------------------------
# device facts from a (fake) runtime
# --------------------------------------------------------------------------------------------

def test_device_info_of_an_amd_device(monkeypatch):
    cupy = fake_cupy(MI300X, is_hip=True)
    monkeypatch.setattr(backend, "cupy_module", lambda: cupy)
    info = backend.device_info()
    assert (info.id, info.name, info.is_hip, info.arch, info.warp_size) == (0, "AMD Instinct MI300X", True, "gfx942", 64)
    assert (info.multiprocessors, info.shared_mem_per_block, info.compute_capability) == (304, 65536, "9.4")
    assert info.target == backend.Target("hip", "gfx942", 64)
    assert info.target.is_hip and str(info.target) == "gfx942 (hip, warp 64)"
    assert backend.device_count() == 1 and backend.is_available() and backend.is_hip_build() is True


def test_device_info_of_an_nvidia_device(monkeypatch):
    cupy = fake_cupy(H200, is_hip=False)
    monkeypatch.setattr(backend, "cupy_module", lambda: cupy)
    info = backend.device_info(0)
    assert (info.arch, info.warp_size, info.is_hip, info.l2_bytes) == ("sm_90", 32, False, 60 * 2**20)
    assert info.target == backend.Target("cuda", "sm_90", 32) and not info.target.is_hip
    assert backend.is_hip_build() is False


def test_device_info_is_read_once_per_device(monkeypatch):
    calls = []
    cupy = fake_cupy(H200)
    cupy.cuda.runtime.getDeviceProperties = lambda i: calls.append(i) or dict(H200)
    monkeypatch.setattr(backend, "cupy_module", lambda: cupy)
    assert backend.device_info(0) is backend.device_info(0)
    assert calls == [0]


def test_no_visible_device_is_a_no_device_error(monkeypatch):
    monkeypatch.setattr(backend, "cupy_module", lambda: fake_cupy(H200, count=0))
    with pytest.raises(NoDeviceError, match="no GPU is visible"):
        backend.device_info(0)
    assert backend.device_count() == 0 and not backend.is_available()


def test_a_device_id_out_of_range_is_a_no_device_error(monkeypatch):
    monkeypatch.setattr(backend, "cupy_module", lambda: fake_cupy(H200, count=2))
    with pytest.raises(NoDeviceError, match=r"device 5 does not exist \(2 visible\)"):
        backend.device_info(5)


# --------------------------------------------------------------------------------------------
# missing CuPy, missing driver
# --------------------------------------------------------------------------------------------

def test_missing_cupy_raises_no_device_error_saying_what_to_install(monkeypatch):
    monkeypatch.setattr(backend, "cupy_module", lambda: None)
    with pytest.raises(NoDeviceError, match=r"CuPy is not installed.*pip install cupy-cuda13x.*cupy-rocm-7-0"):
        backend.cupy()
    with pytest.raises(NoDeviceError, match="pip install"):
        backend.device_info()
    assert backend.device_count() == 0
    assert backend.is_available() is False
    assert backend.is_hip_build() is None


def test_missing_driver_simulated(monkeypatch):
    """CuPy present but the runtime cannot reach a driver: zero devices and a hint, not a crash."""
    cupy = pytest.importorskip("cupy")
    error = cupy.cuda.runtime.CUDARuntimeError(35)  # cudaErrorInsufficientDriver

    def fail(*args):
        raise error

    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", fail)
    monkeypatch.setattr(cupy.cuda.runtime, "getDevice", fail)
    assert backend.device_count() == 0
    with pytest.raises(NoDeviceError, match=r"driver.*pip install") as info:
        backend.device_info()
    assert info.value.__cause__ is None  # the CUDA error is summarised in the message, not chained
    with pytest.raises(NoDeviceError, match=r"driver.*pip install"):
        backend.device_info(0)


@pytest.mark.skipif(HAVE_GPU, reason="a GPU is visible here: this checks the machine without one")
def test_on_this_machine_without_a_gpu_device_info_says_what_to_do():
    pytest.importorskip("cupy")
    assert backend.device_count() == 0
    with pytest.raises(NoDeviceError) as info:
        backend.device_info()
    message = str(info.value)
    assert "pip install" in message and ("driver" in message or "visible" in message)


# --------------------------------------------------------------------------------------------
# the real device
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_real_device_facts_are_consistent():
    info = backend.device_info()
    assert backend.device_count() >= 1
    if info.is_hip:
        assert re.fullmatch(r"gfx[0-9a-f]+", info.arch)
        assert info.warp_size == (64 if info.arch.startswith("gfx9") else 32)
    else:
        assert re.fullmatch(r"sm_\d+", info.arch) and info.warp_size == 32
        assert info.arch == "sm_" + info.compute_capability.replace(".", "")
    assert info.multiprocessors > 0 and info.shared_mem_per_block >= 32 * 1024 and info.total_memory > 0
    assert info.target.warp_size == info.warp_size


@pytest.mark.parametrize("text, want", [("9.0", (9, 0)), ("10.3", (10, 3)), ("9.4", (9, 4)), ("", (0, 0)),
                                        ("90", (0, 0))])
def test_compute_capability_version(text, want):
    assert backend.compute_capability_version(SimpleNamespace(compute_capability=text)) == want


# --------------------------------------------------------------------------------------------
# capabilities
# --------------------------------------------------------------------------------------------

def test_bulk_copy_and_dependent_launch_rules(monkeypatch):
    assert backend.bulk_copy_engine(False, 9) and backend.bulk_copy_engine(False, 10)
    assert not backend.bulk_copy_engine(False, 8) and not backend.bulk_copy_engine(True, 9)
    assert backend.grid_dependency(False, 9) and not backend.grid_dependency(True, 9)
    infos = {0: types.SimpleNamespace(is_hip=False, compute_capability="9.0"),
             1: types.SimpleNamespace(is_hip=False, compute_capability="8.0"),
             2: types.SimpleNamespace(is_hip=True, compute_capability="9.4")}
    monkeypatch.setattr(backend, "device_info", lambda device_id: infos[device_id])
    assert [backend.has_bulk_copy(i) for i in range(3)] == [True, False, False]
    assert [backend.dependent_launches(i) for i in range(3)] == [True, False, False]


def test_shared_memory_limit_is_the_opt_in_maximum_on_nvidia(monkeypatch):
    Facts = collections.namedtuple("Facts", "is_hip shared_mem_per_block")
    backend._shared_memory_limit.cache_clear()
    infos = {0: Facts(False, 48 * 1024), 1: Facts(True, 64 * 1024)}
    monkeypatch.setattr(backend, "device_info", lambda device_id: infos[device_id])
    device = types.SimpleNamespace(attributes={"MaxSharedMemoryPerBlockOptin": 227 * 1024})
    monkeypatch.setattr(backend, "cupy", lambda: types.SimpleNamespace(
        cuda=types.SimpleNamespace(Device=lambda i: device)))
    try:
        assert backend.shared_memory_limit(0) == 227 * 1024
        assert backend.shared_memory_limit(1) == 64 * 1024
        # other facts under the same id (a stand-in device in tests) get their own answer
        infos[0] = Facts(True, 32 * 1024)
        assert backend.shared_memory_limit(0) == 32 * 1024
    finally:
        backend._shared_memory_limit.cache_clear()


def test_install_hints_name_packages_that_exist():
    # rocarray is installed from a checkout; the hints name CuPy's packages, which pip can install
    for text in (backend.INSTALL_HINT, backend.INSTALL_SHORT):
        assert "rocarray[" not in text and "cupy-cuda13x" in text and "cupy-rocm-7-0" in text
    assert 'pip install ".[cuda13]"' in backend.INSTALL_HINT
