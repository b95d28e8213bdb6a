"""gemm launches queued as programmatic dependents (:class:`rocarray._core.driver.DependentLaunch`).

On devices that compile ``griddepcontrol`` (NVIDIA sm_90+), the gemm layers queue the matrix-unit
kernels of a product (the float64 matrix-core tiles, the 16-bit ``mma.sync`` kernel, the warpgroup
kernels of 16-bit and three-TF32 float32 data) as programmatic dependents of the previous kernel
in the stream: their blocks are placed while that kernel ends, and ``ra_dependent_grid_enter()``
waits for its completion before any global access. The SIMT tiles, the finishes and the split
passes launch plainly.

GPU: chains of gemm calls, each reading what the call before it wrote (as an operand into a
NaN-poisoned output, or as C with beta = 1), so a kernel that touched memory before its
predecessor completed would read the poison or a stale C. Each link is checked in float64 and the
dependent launches of the matrix-unit routes are counted. CPU: every kernel the gemm layers may queue as a dependent begins
with ``ra_dependent_grid_enter()``.
"""

import inspect
import re

import numpy as np
import pytest

from conftest import assert_close, to_device, to_host, wide
from rocblas_fixtures import fresh_prepared_launches  # noqa: F401  (autouse)

from rocarray._core import backend, compile as _compile, driver
from rocarray.rocblas._gemm import half as _half, mma as _mma, plan as _plan, simt as _simt, tf32x3 as _tf32x3, wgmma as _wgmma
import rocarray.rocblas as rocblas

#: (source, kernel) of every kernel the level-3 gemm layers launch with ``dependent=True``
DEPENDENT_KERNELS = [
    ("rocblas/gemm.hip", "ra_rocblas_gemm_f64mma"),
    ("rocblas/gemm_mma.hip", "ra_rocblas_gemm_mma"),
    ("rocblas/gemm_wgmma.hip", "ra_rocblas_gemm_wgmma"),
    ("rocblas/gemm_wgmma.hip", "ra_rocblas_gemm_wgmma_x3"),
]

HALF = ["float16"] + (["bfloat16"] if _mma.bfloat16_dtype() is not None else [])


@pytest.fixture
def dependent_calls(monkeypatch):
    """A list that grows by one per dependent launch made."""
    calls = []
    real = driver.DependentLaunch.__call__

    def counted(self, *args):
        calls.append(args[0])
        return real(self, *args)

    monkeypatch.setattr(driver.DependentLaunch, "__call__", counted)
    return calls


def _expect_dependent():
    return backend.dependent_launches(0) and driver.dependent_launch_available()


def _host_dtype(dtype):
    return _mma.bfloat16_dtype() if dtype == "bfloat16" else np.dtype(dtype)


def _rtol(dtype, k, links):
    """Relative tolerance of a chain of ``links`` products of depth ``k`` in ``dtype`` (16-bit data:
    float32 sums, each link's output rounded to 16 bits; the other dtypes: the library's)."""
    if dtype in HALF:
        eps = 2.0**-8 if dtype == "bfloat16" else 2.0**-11
        return 2.0 * links * (eps + (k + 8) * 2.0**-23)
    return None


def _check(got, want, dtype, k):
    """One product of depth ``k`` against its float64 reference."""
    rtol = _rtol(dtype, k, 1)
    scale = float(np.max(np.abs(want)))
    if rtol is None:
        assert_close(got, want, dtype, k, atol_scale=scale)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"] + HALF)
@pytest.mark.parametrize("n", [999, 1000])
def test_gemm_chain_reads_each_previous_product(rng, dependent_calls, dtype, n):
    """X_{i+1} = X_i W into NaN-poisoned buffers (column-major n x n). n = 1000: float32 on the
    three-TF32 kernel that splits inside, float64 on the matrix-core tiles, complex on the SIMT
    tiles, 16-bit on the warpgroup kernel; n = 999 (leading dimensions off 16 bytes): float32's
    split and guard passes, 16-bit's mma.sync kernel."""
    _chain(rng, dependent_calls, dtype, n, dtype in ["float32", "float64"] + HALF)


def _chain(rng, dependent_calls, dtype, n, dependent_route):
    links = 4
    hd = _host_dtype(dtype)
    scale = 1.0 / np.sqrt(n)
    if np.dtype(dtype).kind == "c":
        w = ((rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))) * scale / np.sqrt(2)).astype(hd)
        x0 = (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))).astype(hd)
    else:
        w = (rng.standard_normal((n, n)) * scale).astype(hd)
        x0 = rng.standard_normal((n, n)).astype(hd)
    dev_w = to_device(w.ravel(order="F"))
    xs = [to_device(x0.ravel(order="F"))] + [to_device(np.full(n * n, np.nan, hd)) for _ in range(links)]
    one, zero = (1.0, 0.0) if dtype in HALF else (np.dtype(dtype).type(1), np.dtype(dtype).type(0))
    for i in range(links):
        rocblas.gemm("N", "N", n, n, n, one, xs[i], n, dev_w, n, zero, xs[i + 1], n)
    for i in range(links):
        # each link starts from the previous link's stored (rounded) result, as the device does
        prev = wide(to_host(xs[i]).reshape(n, n, order="F"))
        want = prev @ wide(w)
        got = wide(to_host(xs[i + 1]).reshape(n, n, order="F"))
        _check(got, want, dtype, n)
    if _expect_dependent() and dependent_route:
        assert len(dependent_calls) >= links


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"] + HALF)
def test_gemm_split_k_chain_accumulates_into_c(rng, dependent_calls, dtype):
    """C += A_i B_i (beta = 1) five times on one C, k split in parts: each call's kernel reads the C
    (and its finish the partials) that the call before it wrote. 16-bit: the warpgroup kernel
    with its float32 finish."""
    m, n, k = (256, 136, 4000) if dtype in HALF else (70, 65, 5000)
    links = 5
    hd = _host_dtype(dtype)
    if dtype not in HALF:
        assert _plan.heuristic(dtype, m, n, k, 132)[1] > 1
    c0 = rng.standard_normal((m, n)).astype(hd)
    dc = to_device(c0.ravel(order="F"))
    want = wide(c0)
    mags = np.abs(want)
    one = 1.0 if dtype in HALF else np.dtype(dtype).type(1)
    for _ in range(links):
        a = (rng.standard_normal((m, k)) / np.sqrt(k)).astype(hd)
        b = rng.standard_normal((k, n)).astype(hd)
        rocblas.gemm("N", "N", m, n, k, one, to_device(a.ravel(order="F")), m, to_device(b.ravel(order="F")), k,
                     one, dc, m)
        want = want + wide(a) @ wide(b)
        if dtype in HALF:   # the device rounds C to 16 bits after each call
            want = wide(want.astype(hd))
        mags = mags + np.abs(wide(a)) @ np.abs(wide(b))
    got = wide(to_host(dc).reshape(m, n, order="F"))
    rtol = _rtol(dtype, k, links)
    if rtol is None:
        assert_close(got, want, dtype, k * links, atol_scale=float(np.max(mags)))
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * float(np.max(mags)))
    if _expect_dependent() and dtype in ["float64"] + HALF:
        assert len(dependent_calls) >= links


@pytest.mark.gpu
def test_gemm_chain_float32_simt(rng, dependent_calls, monkeypatch):
    """The float32 SIMT tiles (the three-TF32 path turned off, plain launches), chained as above."""
    monkeypatch.setenv("ROCARRAY_GEMM_FLOAT32", "simt")
    _chain(rng, dependent_calls, "float32", 1000, False)


# --------------------------------------------------------------------------------------------
# CPU: the kernels' entry
# --------------------------------------------------------------------------------------------

def _body_start(text, kernel):
    """The first statement of ``__global__`` function ``kernel``'s body in ``text``."""
    match = re.search(r"__global__[^;{]*?\b" + re.escape(kernel) + r"\s*\(", text)
    assert match, f"{kernel} not found"
    depth, i = 0, match.end() - 1
    while True:   # skip the parameter list
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
        if depth == 0:
            break
    body = text.index("{", i) + 1
    return text[body:].lstrip().split(";", 1)[0]


@pytest.mark.parametrize("source, kernel", DEPENDENT_KERNELS)
def test_dependent_kernels_wait_before_touching_memory(source, kernel):
    assert _body_start(_compile.read_text(source), kernel) == "ra_dependent_grid_enter()"


def test_every_dependent_gemm_launch_is_listed():
    """The Python layers pass ``dependent=`` only where they launch the kernels listed above."""
    sites = {m.__name__.rsplit(".", 1)[1] + ".py": len(re.findall(r"dependent=", inspect.getsource(m)))
             for m in (_simt, _half, _mma, _wgmma, _tf32x3)}
    assert sites == {"simt.py": 1, "half.py": 0, "mma.py": 1, "wgmma.py": 1, "tf32x3.py": 0}
