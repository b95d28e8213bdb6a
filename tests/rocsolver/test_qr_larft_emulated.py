"""``ra_rocsolver_larft_inv`` (``rocarray/_kernels/rocsolver/qr.hip``: T of a block reflector as
``(I + diag(tau) striu(S))^{-1} diag(tau)``, diagonal blocks by substitution, then doubling
products) run on the CPU through the kernel emulator (tests/kernel_emu.py), on the 32-lane and
64-lane targets.

Against LAPACK's column recurrence (xLARFT, forward, columnwise; ``qr_host.larft`` in NumPy) and
against the recurrence kernel ``ra_rocsolver_larft`` run on the same target: reflectors and tau
from LAPACK's geqrf (``numpy.linalg.qr(mode='raw')``) of random and of cond-1e10 matrices, tau = 0
columns (T's row and column zero), orders 1, 2 and across the diagonal blocks (16) and the
products' column groups (31, 32, 33, 64, 128), stacks of 3, every dtype, the work matrix in
shared memory and in T (bit-identical). S is passed with NaN on
and below its diagonal and T poisoned with NaN, so both show the kernel reads only S's strict
upper triangle and writes all of T (zeros below the diagonal).

CPU tests: skipped where g++ is missing.
"""

import numpy as np
import pytest

import qr_host
from kernel_emu import emulated_target_device, spread  # noqa: F401 (fixture)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated devices build on)

from rocarray.rocsolver import _qr_kernels

ALL = ["float32", "float64", "complex64", "complex128"]


def reflectors(rng, k, dtype, kind):
    """(V, tau) of LAPACK's geqrf of a (k + 5) x k matrix: V unit lower trapezoidal."""
    m = k + 5
    real = np.dtype(dtype).kind == "f"
    a = rng.standard_normal((m, k)) + (0 if real else 1j * rng.standard_normal((m, k)))
    if kind == "illcond":
        u, _, w = np.linalg.svd(a, full_matrices=False)
        a = (u * np.logspace(0, -10, k)) @ w
    h, tau = np.linalg.qr(a.astype(np.complex128 if not real else np.float64), mode="raw")
    v = np.tril(h.T, -1) + np.eye(m, k)
    tau = tau.copy()
    if kind == "tau0":
        tau[::3] = 0  # H_i = I: T's row i and column i are zero
    return v.astype(dtype), tau.astype(dtype)


def run(k, S, lds, tau, ldt, batch, device, dtype, inverse, shared=True):
    T = device.array(np.full(batch * ldt * k, np.nan, dtype))
    old = _qr_kernels.LARFT_INVERSE, _qr_kernels.LARFT_INVERSE_SHARED
    _qr_kernels.LARFT_INVERSE, _qr_kernels.LARFT_INVERSE_SHARED = inverse, shared
    try:
        _qr_kernels.larft(k, device.array(S), lds, lds * k, device.array(tau), k, T, ldt, ldt * k, batch)
    finally:
        _qr_kernels.LARFT_INVERSE, _qr_kernels.LARFT_INVERSE_SHARED = old
    return T.get()


CASES = [(1, 1, "random"), (2, 3, "tau0"), (31, 1, "illcond"), (32, 3, "random"), (33, 2, "tau0"),
         (64, 1, "illcond"), (128, 1, "random"), (128, 1, "tau0")]


@pytest.mark.parametrize("emulated_target_device, dtype, k, batch, kind", spread(CASES, ALL),
                         indirect=["emulated_target_device"])
def test_larft_inverse_matches_the_recurrence(emulated_target_device, rng, monkeypatch, dtype, k, batch, kind):
    device = emulated_target_device
    # an H100's opt-in block limit: k = 128 in shared memory but for double complex
    monkeypatch.setattr(_qr_kernels.backend, "shared_memory_limit", lambda device_id: 232448)
    lds, ldt = k + 2, k + 1
    S = np.full(batch * lds * k, np.nan, dtype)
    tau = np.zeros(batch * k, dtype)
    for b in range(batch):
        v, tau[b * k:(b + 1) * k] = reflectors(rng, k, dtype, kind)
        s = v.conj().T @ v
        for j in range(k):
            S[b * lds * k + j * lds:b * lds * k + j * lds + j] = s[:j, j]  # strict upper triangle only
    want = np.zeros(batch * ldt * k, dtype)
    qr_host.larft(k, np.nan_to_num(S), lds, lds * k, tau, k, want, ldt, ldt * k, batch)
    got = run(k, S, lds, tau, ldt, batch, device, dtype, True)
    in_t = run(k, S, lds, tau, ldt, batch, device, dtype, True, shared=False)
    recurrence = run(k, S, lds, tau, ldt, batch, device, dtype, False)
    assert np.array_equal(got, in_t, equal_nan=True)  # the same arithmetic wherever the work matrix lives
    eps = np.finfo(np.dtype(dtype)).eps
    for b in range(batch):
        g = qr_host.mat(got[b * ldt * k:], k, k, ldt)
        w = qr_host.mat(want[b * ldt * k:], k, k, ldt)
        r = qr_host.mat(recurrence[b * ldt * k:], k, k, ldt)
        assert np.all(np.tril(g, -1) == 0)
        assert np.array_equal(np.diagonal(g), tau[b * k:(b + 1) * k])
        if kind == "tau0":
            zero = np.flatnonzero(tau[b * k:(b + 1) * k] == 0)
            assert np.all(g[zero, :] == 0) and np.all(g[:, zero] == 0)
        scale = np.abs(w).max()
        for other in (w, r):
            np.testing.assert_allclose(g, other, rtol=0, atol=30 * eps * k * scale)


def test_larft_picks_the_inverse_up_to_its_largest_order(fake_device, monkeypatch):  # noqa: F811
    S = fake_device.array((130 * 130,), np.float64)
    for k, inverse, want in ((128, True, "larft_inv"), (129, True, "larft"), (64, False, "larft")):
        monkeypatch.setattr(_qr_kernels, "LARFT_INVERSE", inverse)
        _qr_kernels.larft(k, S, k, k * k, S, k, S, k, k * k, 3)
        launch = fake_device.launches[-1]
        assert launch.name.startswith(f"ra_rocsolver_{want}<") and launch.grid[0] == 3
