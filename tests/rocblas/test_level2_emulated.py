"""The one-launch trsv (``ra_rocblas_trsv_one`` in ``rocblas/level2.hip``) run on the CPU by the
kernel emulator (``tests/kernel_emu.py``), on NVIDIA's 32 lanes and AMD's 64-lane wavefront in
turn. Every uplo x trans x diag in float64 for n = 1, 37 and 200 (several block-rows, a short
last one), one complex128 'C' case, one float32 case, and negative and non-unit increments with
``lda > n``: against NumPy's solve in float64/complex128. The unreferenced triangle (and a unit
diagonal) holds NaN, so reading it shows up; x's elements outside the vector are NaN and must stay
so. The emulator runs blocks one after another, so the tickets come in launch order; the several
launches of a test on one stream check that the ticket counter, the finish counter and the flags
are left 0 for the next launch. CPU tests: skipped where g++ is missing.
"""

import itertools

import numpy as np
import pytest

from conftest import assert_close, random_array, wide
from kernel_emu import emulated_target_device  # noqa: F401 (the fixture)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated device builds on)
from level2_host import blas_index
from rocblas_fixtures import fresh_prepared_launches  # noqa: F401 (autouse)

import rocarray.rocblas as rocblas
from rocarray._core import workspace
from rocarray.rocblas import _level2

TRI = list(itertools.product("UL", "NTC", "NU"))


@pytest.fixture(autouse=True)
def one_launch(monkeypatch):
    monkeypatch.setattr(_level2, "TRSV_ONE_LAUNCH", True)


def _solve(device, rng, dtype, uplo, trans, diag, n, incx, extra=0):
    """One trsv on the emulated device against NumPy; returns nothing, asserts."""
    lda = max(1, n) + extra
    buf = random_array(rng, lda * max(n, 1), dtype)
    pos = np.arange(n)[:, None] + np.arange(n)[None, :] * lda
    i, j = np.indices((n, n))
    off = i != j
    buf[pos[off]] = buf[pos[off]] / n                      # well conditioned with either diagonal
    buf[pos[~off]] = np.nan if diag == "U" else (2 + 1j if buf.dtype.kind == "c" else 2)
    buf[pos[(i > j) if uplo == "U" else (i < j)]] = np.nan  # the unreferenced triangle: never read
    a = np.nan_to_num(wide(buf)[pos])
    t = np.triu(a) if uplo == "U" else np.tril(a)
    if diag == "U":
        np.fill_diagonal(t, 1)
    op = t if trans == "N" else (t.T if trans == "T" else t.conj().T)
    length = (n - 1) * abs(incx) + 3
    xh = np.full(length, np.nan, dtype)
    at = blas_index(n, incx)
    xh[at] = random_array(rng, n, dtype)
    A, x = device.array(buf), device.array(xh)
    rocblas.trsv(uplo, trans, diag, n, A, lda, x, incx)
    got = device.cupy.asnumpy(x)
    rest = np.ones(length, bool)
    rest[at] = False
    assert np.isnan(got[rest]).all(), "elements outside x were written"
    np.testing.assert_array_equal(device.cupy.asnumpy(A), buf)
    want = np.linalg.solve(op, wide(xh[at]))
    assert not np.isnan(got[at]).any(), "NaN in x: a poisoned element of A was read"
    assert_close(got[at], want, dtype, n, atol_scale=float(np.max(np.abs(want))))
    assert np.asarray(device.cupy.asnumpy(_level2._trsv_state(0))).tolist() == [0, 0, 0, 0], \
        "the counters are left 0 and no wait gave up"
    ready = device.cupy.asnumpy(workspace.workspaces.counters("rocblas.level2.trsv_ready", 4, 0))
    assert not ready.any(), "the last block to finish clears the flags"


def _targets(cases):
    """Each case on one target, alternating (the emulator runs a block's threads one by one)."""
    return [("cuda32" if k % 2 == 0 else "hip64",) + c for k, c in enumerate(cases)]


@pytest.mark.parametrize("emulated_target_device, uplo, trans, diag", _targets(TRI),
                         indirect=["emulated_target_device"])
def test_trsv_one_launch_float64(emulated_target_device, rng, uplo, trans, diag):
    device = emulated_target_device
    for n in (1, 37, 200):
        _solve(device, rng, "float64", uplo, trans, diag, n, 1)
    names = [name for name in device.names() if "trsv" in name or "gemv" in name]
    assert names == ["ra_rocblas_trsv_one<double, 64>"] * 3, "one launch per solve"


@pytest.mark.parametrize("emulated_target_device, dtype, uplo, trans, diag, n, incx, extra", _targets([
    ("complex128", "U", "C", "N", 200, 1, 0),     # block-rows of 32: seven, the last short
    ("float32", "L", "T", "N", 150, 1, 3),
    ("float64", "L", "N", "N", 130, -2, 5),       # negative increment, lda > n
    ("complex64", "U", "N", "U", 70, 3, 1),
]), indirect=["emulated_target_device"])
def test_trsv_one_launch_dtypes_and_increments(emulated_target_device, rng, dtype, uplo, trans, diag, n, incx,
                                               extra):
    _solve(emulated_target_device, rng, dtype, uplo, trans, diag, n, incx, extra)


@pytest.mark.parametrize("emulated_target_device", ["cuda32"], indirect=True)
def test_trsv_one_launch_gives_up_a_wait_that_cannot_end(emulated_target_device, rng, monkeypatch):
    """The bounded wait: with the ticket counter put one ahead, the first block draws ticket 1 and
    waits for block-row 0, which no block has solved yet (the emulator runs blocks one by one):
    it gives up after TRSV_SPIN_LIMIT (the emulator's clock counts nanoseconds), writes NaN for
    its unknowns and records the launch; the launch finishes and check_trsv raises, once."""
    device = emulated_target_device
    monkeypatch.setattr(_level2, "TRSV_SPIN_LIMIT", 10 ** 6)
    n = 200
    a = np.tril(random_array(rng, (n, n), "float64") / n) + 2 * np.eye(n)
    x = device.array(random_array(rng, n, "float64"))
    state = _level2._trsv_state(0)
    state[0] = 1
    rocblas.trsv("L", "N", "N", n, device.array(np.asfortranarray(a).ravel(order="F")), n, x, 1)
    got = device.cupy.asnumpy(x)
    assert np.isnan(got[64:128]).all() and not np.isnan(got[:64]).any()
    assert np.asarray(device.cupy.asnumpy(state)).tolist() == [1, 0, 0, 1]
    state[0] = 0   # four blocks drew tickets 1, 2, 3 (the reset) and 0: the counter is left at 1
    with pytest.raises(RuntimeError, match="waited too long"):
        _level2.check_trsv(0)
    _level2.check_trsv(0)
