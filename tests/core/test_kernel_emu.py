"""The kernel emulator's own checks (tests/kernel_emu.py): collectives, shared memory and atomics
compute what a GPU does, and kernels with warp or barrier mistakes fail loudly instead of passing."""

import os

import numpy as np
import pytest

from kernel_emu import KernelFault, emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

import rocarray as ra
from rocarray._core import kernels

SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernel_emu_selfcheck.hip")


def _launch(name, grid, block, args, shared=0):
    kernels.Kernel(SOURCE, name, block, 1)(0, grid, args, shared=shared)


def test_block_reduction_and_double_atomics(emulated_device):
    h = np.random.default_rng(1).standard_normal(1000)
    out = emulated_device.array(np.zeros(1))
    _launch("emu_check_block_sum", 4, 256, (emulated_device.array(h), np.int64(h.size), out))
    np.testing.assert_allclose(np.asarray(out)[0], h.sum(), rtol=1e-12)


@pytest.mark.parametrize("fixture,warp", [("emulated_device", 32), ("emulated_wave64_device", 64)])
def test_shuffles_and_ballot_follow_the_vendors(request, fixture, warp):
    device = request.getfixturevalue(fixture)
    out = device.array(np.zeros(4 * 128, np.int32))
    _launch("emu_check_shuffles", 1, 128, (out,))
    got = np.asarray(out).reshape(128, 4)
    lane = np.arange(128) % warp
    np.testing.assert_array_equal(got[:, 0], (lane + 3) % warp * 10)
    np.testing.assert_array_equal(got[:, 1], np.where(lane + 5 < warp, lane + 5, lane) * 10)
    np.testing.assert_array_equal(got[:, 2], np.where(lane >= 2, lane - 2, lane) * 10)
    assert set(got[:, 3].view(np.uint32)) == {sum(1 << b for b in range(0, 32, 3))}


def test_dynamic_shared_memory_and_integer_atomics(emulated_device):
    h = np.arange(3 * 128, dtype=np.float32)
    y = emulated_device.array(np.zeros_like(h))
    stats = emulated_device.array(np.array([0, 0, 1 << 40, 0], np.uint64))
    _launch("emu_check_shared_atomics", 3, 128, (emulated_device.array(h), y, stats), shared=128 * 4)
    np.testing.assert_array_equal(np.asarray(y), h.reshape(3, 128)[:, ::-1].ravel())
    np.testing.assert_array_equal(np.asarray(stats), [384, 383, 0, 7])


def test_shared_memory_starts_each_block_poisoned(emulated_device):
    out = emulated_device.array(np.zeros(64, np.float32))
    _launch("emu_check_uninitialized_shared", 2, 32, (out,))
    got = np.asarray(out)
    assert (got[:32] == 1).all() and np.isnan(got[32:]).all()


def test_a_shuffle_from_an_exited_lane_fails(emulated_device):
    x, out = emulated_device.array(np.ones(32)), emulated_device.array(np.zeros(1))
    with pytest.raises(KernelFault, match="did not take part"):
        _launch("emu_check_exited_lane", 1, 32, (x, np.int32(20), out))


def test_a_barrier_against_a_shuffle_is_a_deadlock(emulated_device):
    with pytest.raises(KernelFault, match="deadlock"):
        _launch("emu_check_divergent_barrier", 1, 64, (emulated_device.array(np.zeros(64, np.int32)),))


def test_lanes_at_different_collectives_fail(emulated_device):
    with pytest.raises(KernelFault, match="different kinds"):
        _launch("emu_check_mixed_collectives", 1, 32, (emulated_device.array(np.zeros(32, np.int32)),))


def test_an_argument_of_the_wrong_width_is_refused(emulated_device):
    x, out = emulated_device.array(np.ones(32)), emulated_device.array(np.zeros(1))
    with pytest.raises(TypeError, match="parameter has 4 bytes"):
        _launch("emu_check_exited_lane", 1, 32, (x, np.int64(32), out))


@pytest.mark.parametrize("n", [1, 300, 40000])
def test_known_good_prim_scan_and_reduce(emulated_device, n):
    # the decoupled look-back scan across several tiles, the row reduction across blocks
    h = np.random.default_rng(2).standard_normal(n)
    x = emulated_device.array(h)
    np.testing.assert_allclose(np.asarray(ra.prim.inclusive_scan(x)), np.cumsum(h), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np.asarray(ra.prim.reduce(x, op="add")), h.sum(), rtol=1e-10, atol=1e-10)


def test_inline_ptx_is_refused_with_a_reason(emulated_device):
    from kernel_emu import Unsupported

    with pytest.raises(Unsupported, match="inline PTX"):
        ra.prim.inclusive_scan(emulated_device.array(np.ones(10, np.float16)))


@pytest.mark.parametrize("fixture", ["emulated_device", "emulated_wave64_device"])
def test_a_cooperative_launch_runs_its_blocks_together(request, fixture):
    """Blocks meet at a spin-wait grid barrier (impossible one block at a time) and each keeps
    its own shared memory across the others' turns."""
    device = request.getfixturevalue(fixture)
    blocks, threads = 5, 64
    count = device.array(np.zeros(1, np.uint32))
    marks = device.array(np.zeros(blocks * threads, np.int32))
    out = device.array(np.zeros(2 * blocks * threads, np.int32))
    kernels.Kernel(SOURCE, "emu_check_cooperative", threads, 1)(
        0, blocks, (count, marks, out), shared=threads * 4, cooperative=True)
    got = np.asarray(out).reshape(blocks, threads, 2)
    g, t = np.meshgrid(np.arange(blocks), np.arange(threads), indexing="ij")
    np.testing.assert_array_equal(got[..., 0], g * 1000000 + g * 1000 + t)
    np.testing.assert_array_equal(got[..., 1], (g + 1) % blocks + 1)
    assert device.launches[-1].cooperative


def test_libraries_share_the_precompiled_prefix_and_keep_their_own_runtime_state(emulated_device):
    """A kernel library's build reads the shared prefix (the shim and the pasted headers) from
    its precompiled form, and each library has its own, unexported runtime: a failed launch of
    one leaves the next library's error state empty."""
    import subprocess

    import kernel_emu

    defines = kernel_emu.TARGETS["cuda32"]
    text = kernel_emu.translation_unit(SOURCE, "emu_check_block_sum")
    assert text.startswith(kernel_emu.prefix_text()), "the translation unit does not start with the shared prefix"
    header, runtime = kernel_emu._target_parts(defines)
    assert runtime.exists() and header.with_name(header.name + ".gch").exists()
    probe = header.with_name(f"probe-{os.getpid()}.cpp")
    probe.write_text(f'#include "{header}"\n{text[len(kernel_emu.prefix_text()):]}')
    try:
        run = subprocess.run([kernel_emu.compiler(), *kernel_emu.FLAGS, *defines, "-H", "-fsyntax-only", str(probe)],
                             capture_output=True, text=True)
    finally:
        probe.unlink()
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"! {header}.gch" in run.stderr, "g++ did not use the precompiled prefix:\n" + run.stderr[:2000]

    with pytest.raises(KernelFault, match="deadlock"):
        _launch("emu_check_divergent_barrier", 1, 64, (emulated_device.array(np.zeros(64, np.int32)),))
    failed = kernel_emu.kernel(SOURCE, "emu_check_divergent_barrier")
    fine = kernel_emu.kernel(SOURCE, "emu_check_block_sum")
    assert b"deadlock" in failed._error() and fine._error() == b""
    for runtime_symbol in ("_ZN3emu11syncthreadsEv", "_ZN3emu5errorB5cxx11E"):
        assert not hasattr(fine.library, runtime_symbol), f"{runtime_symbol} is exported"


def test_a_source_s_listed_kernels_share_one_library_and_a_broken_list_falls_back(emulated_device, monkeypatch):
    """The kernels the manifest lists for a source are built into one library, each with its own
    entry points; a list that does not build (a name the source lost) builds the kernel alone."""
    import kernel_emu

    listed = ["emu_check_block_sum", "emu_check_shuffles"]
    monkeypatch.setattr(kernel_emu, "_manifest_memo", [{"cuda32": {SOURCE: listed}}])
    monkeypatch.setattr(kernel_emu, "_broken_groups", set())
    total, shuffles = (kernel_emu.EmulatedKernel(SOURCE, name, "cuda32") for name in listed)
    assert total.library._name == shuffles.library._name
    assert total.param_sizes == (8, 8, 8) and shuffles.param_sizes == (8,)
    h = np.random.default_rng(2).standard_normal(300)
    out = emulated_device.array(np.zeros(1))
    total(2, 256, (emulated_device.array(h), np.int64(h.size), out))
    np.testing.assert_allclose(np.asarray(out)[0], h.sum(), rtol=1e-12)

    monkeypatch.setattr(kernel_emu, "_manifest_memo", [{"cuda32": {SOURCE: [*listed, "emu_check_no_such_kernel"]}}])
    alone = kernel_emu.EmulatedKernel(SOURCE, listed[0], "cuda32")
    assert alone.library._name != total.library._name and len(kernel_emu._broken_groups) == 1


def test_the_manifest_lists_only_kernels_of_their_sources():
    """Every name :data:`kernel_emu.MANIFEST` lists is still its source's: a registered
    instantiation, or an ``extern "C"`` kernel (RA_KERNEL) of the source's text (a stale name
    makes its whole list build again, kernel by kernel)."""
    import re

    import kernel_emu
    from rocarray._core import compile as ra_compile
    from rocarray._core import offline

    offline.import_all_libraries()
    stale = []
    for target, by_source in kernel_emu.manifest().items():
        assert target in kernel_emu.TARGETS
        for source, names in by_source.items():
            text = ra_compile.read_text(source)
            for name in names:
                if "<" in name:
                    ok = name in ra_compile.registered(source)
                else:
                    ok = re.search(rf"\b{re.escape(name)}\s*\(", text) is not None
                if not ok:
                    stale.append(f"{target} {source} {name}")
    assert not stale, ("kernel_emu_kernels.json lists kernels its sources no longer have (rewrite it with "
                       "kernel_emu.write_manifest from a ROCARRAY_EMU_RECORD run):\n" + "\n".join(stale))
