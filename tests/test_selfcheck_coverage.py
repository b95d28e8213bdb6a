"""Every kernel of the sources is launched by some self-check, so that the sanitized workload
(``scripts/sanitize.py``: the self-checks under compute-sanitizer) reaches it; shown on the CPU
with the launch-recording device (``tests/selfcheck_launches.py``)."""

import importlib.util
import os

from launchfake import fake_device  # noqa: F401 (the fixture)
from selfcheck_launches import launches_of_self_checks

HERE = os.path.dirname(os.path.abspath(__file__))

#: Kernels a self-check launches on the GPU, but only after the host reads back a value that
#: earlier kernels computed (the recording device runs no kernel), or past a CuPy feature the
#: NumPy stand-in lacks. The sanitizer report (its last line) shows them launched on the GPU.
NOT_PROVED_HERE = {
    # triangular solves and incomplete factorizations launch per level of the level sets the
    # analysis computed on the device
    "ra_rocsparse_csrsv_level": "rocsparse.csrsv: levels read back from the analysis",
    "ra_rocsparse_csrsv_frontier": "rocsparse.csrsv: levels read back from the analysis",
    "ra_rocsparse_csrsv_zero_pivot": "rocsparse.csrsv: runs after the analysis",
    "ra_rocsparse_csrilu0_level": "rocsparse.ilu0_ic0: levels read back from the analysis",
    "ra_rocsparse_csric0_level": "rocsparse.ilu0_ic0: levels read back from the analysis",
    # the product's rows are binned by the sizes the first pass computed on the device
    "ra_rocsparse_spgemm_count": "rocsparse.csrgemm: rows binned by device-computed sizes",
    "ra_rocsparse_spgemm_fill": "rocsparse.csrgemm: rows binned by device-computed sizes",
    "ra_rocsparse_spgemm_merge_count": "rocsparse.csrgemm: rows binned by device-computed sizes",
    "ra_rocsparse_spgemm_merge_fill": "rocsparse.csrgemm: rows binned by device-computed sizes",
    # graph searches loop while the device reports a nonempty frontier
    "ra_rocsparse_bfs_keys": "rocsparse.csgraph: loops on the frontier size read back",
    "ra_rocsparse_bfs_pred": "rocsparse.csgraph: loops on the frontier size read back",
    "ra_rocsparse_cc_compress": "rocsparse.csgraph: loops until no label changes, read back",
}


def _known_kernels():
    spec = importlib.util.spec_from_file_location("rocarray_sanitize_script",
                                                  os.path.join(os.path.dirname(HERE), "scripts", "sanitize.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.known_kernels(), module.base_name


def test_every_kernel_of_the_sources_is_launched_by_a_self_check(fake_device, monkeypatch):  # noqa: F811
    known, base_name = _known_kernels()
    runs = launches_of_self_checks(fake_device, monkeypatch)
    launched = {base_name(name) for names, _ in runs.values() for name in names}
    assert launched <= known, f"launched kernels the source scan does not know: {sorted(launched - known)}"
    missing = known - launched
    unexplained = sorted(missing - set(NOT_PROVED_HERE))
    stops = {name: why for name, (_, why) in runs.items() if why}
    assert not unexplained, f"kernels no self-check launches: {unexplained}; checks that stopped early: {stops}"
    # an entry of the list that is launched now goes, so the list stays what it says
    assert not sorted(set(NOT_PROVED_HERE) - missing), sorted(set(NOT_PROVED_HERE) - missing)
