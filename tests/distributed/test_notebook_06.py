"""``notebooks/06_distributed.ipynb`` top to bottom on the CPU, as on a machine with one GPU and on
one with two: its code cells run in order over the real Communicator (``Communicator.local``,
``run_threads``, the distributed FFT and split-array helpers) on the fake transport of
``fake_comm`` with NumPy buffers (``dfft_standin.NumpyOps``), a NumPy stand-in for the few CuPy
calls the notebook makes, NumPy's FFT for its local-FFT timing, and smaller sizes. What the GPU
run prints and draws (the lead's nbclient run) is checked here for both world sizes."""

import contextlib
import io
import json
import os
import sys
import types

import numpy as np
import pytest

import rocarray.rocfft
from rocarray.distributed import _local

from dfft_standin import NumpyOps
from fake_comm import Transport, installed

NOTEBOOK = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "notebooks", "06_distributed.ipynb")

# the notebook's sizes -> CPU sizes (each must be found, so an edit of the notebook fails here first)
SMALLER = {
    "N = 256\n": "N = 16\n",
    "else 512\n": "else 16\n",
    "n_samples, n_features = 200_000, 64\n": "n_samples, n_features = 2_000, 8\n",
    "def timed(fn, repeat=7):": "def timed(fn, repeat=1):",
}


def _cells():
    with open(NOTEBOOK, encoding="utf-8") as f:
        nb = json.load(f)
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    text = "\n# ---- cell ----\n".join(code)
    for old, new in SMALLER.items():
        assert old in text, f"the notebook no longer has {old!r}"
        text = text.replace(old, new)
    return text.split("\n# ---- cell ----\n")


def _numpy_cupy(devices):
    """The CuPy calls of the notebook, on NumPy, for a machine with ``devices`` GPUs of 16 GiB."""
    cupy = types.ModuleType("cupy")
    for name in ("asarray", "where", "empty_like", "zeros", "ascontiguousarray"):
        setattr(cupy, name, getattr(np, name))
    cupy.asnumpy = np.asarray
    rng = np.random.default_rng(0)
    cupy.random = types.SimpleNamespace(
        standard_normal=lambda shape, dtype=np.float64: rng.standard_normal(shape).astype(dtype))

    class Device:
        def __init__(self, device=None):
            self.mem_info = (15 * 2**30, 16 * 2**30)

        def synchronize(self):
            pass

    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: devices), Device=Device)
    return cupy


def _numpy_c2c(x, axes, forward=True):
    return np.fft.fftn(x, axes=axes) if forward else np.fft.ifftn(x, axes=axes)


@pytest.mark.parametrize("devices", [1, 2, 4])
def test_the_notebook_runs_on_any_number_of_gpus(devices, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setattr(_local, "ops", NumpyOps)
    monkeypatch.setitem(sys.modules, "cupy", _numpy_cupy(devices))
    monkeypatch.setattr(rocarray.rocfft, "c2c", _numpy_c2c)
    names, out = {"__name__": "notebook_06"}, io.StringIO()
    plt.close("all")  # figures another test of this process left open are not the notebook's
    try:
        with installed(Transport()), contextlib.redirect_stdout(out):
            for i, cell in enumerate(_cells()):
                exec(compile(cell, f"06_distributed.ipynb code cell {i}", "exec"), names)
    finally:
        plt.close("all")
    printed = out.getvalue()
    ranks = min(2, devices)
    assert names["RANKS"] == ranks
    assert all(comm._closed == "closed" for comm in names["comms"])  # the last cell closes them
    assert names["error"] < 1e-10, printed  # the spectral solve is exact for these modes
    assert np.allclose(names["u"], names["exact"](*np.meshgrid(names["grid"], names["grid"], names["grid"],
                                                               indexing="ij")), atol=1e-10)
    assert "every rank agrees: True" in printed
    assert f"the {ranks} copies of the parameters agree: True" in printed
    assert np.linalg.norm(names["w0"] - names["w_true"]) < 0.05  # the training converged
    assert names["M"] == 16
    if ranks == 1:
        assert "one GPU: a single rank, so every collective below is an identity" in printed
        assert "on 1 GPU: local FFTs" in printed and "nothing crosses" in printed
    else:
        assert "2 ranks on GPUs [0, 1]" in printed
        assert "on 2 GPUs: local FFTs" in printed and "GB/s crossing per rank" in printed
