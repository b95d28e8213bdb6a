"""``ra.profile()``: the launch layer reports every launch to the active profile; the table, the
Chrome trace and the plot from recorded rows; fall-through calls as rows; on the GPU, real
launches timed by events."""

import json

import numpy as np
import pytest

from conftest import random_array, to_device
from launchfake import fake_device  # noqa: F401 (the fixture)

import rocarray as ra
from rocarray._core import launch as _launch
from rocarray._user import profile as _profile


class Recorder:
    """A stand-in observer: what the launch layer reports, in order."""

    def __init__(self):
        self.events = []

    def begin(self, name, grid, block, shared):
        self.events.append(("begin", name, grid, block, shared))
        return len(self.events)

    def end(self, token):
        self.events.append(("end", token))


def test_every_launch_of_a_library_call_reports_its_name_and_dimensions(fake_device, monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(_launch, "observer", recorder)
    x = fake_device.array((100_003,), "float32")
    ra.prim.reduce(x, op="add")
    ra.prim.reduce(x, op="add")  # the warm call: prepared launches report too
    begins = [e for e in recorder.events if e[0] == "begin"]
    assert [b[1] for b in begins] == [launch.name for launch in fake_device.launches]
    assert [tuple(np.atleast_1d(b[2])) for b in begins][0][0] == fake_device.launches[0].grid[0]
    assert sum(e[0] == "end" for e in recorder.events) == len(begins) > 0


def test_no_observer_means_no_report(fake_device, monkeypatch):
    monkeypatch.setattr(_launch, "observer", None)
    x = fake_device.array((1000,), "float32")
    ra.prim.reduce(x, op="add")
    assert fake_device.launches


def test_the_profile_takes_over_the_observer_and_gives_it_back(monkeypatch):
    monkeypatch.setattr(_launch, "observer", None)
    with ra.profile() as prof:
        assert _launch.observer is prof
        with ra.profile() as inner:
            assert _launch.observer is inner
        assert _launch.observer is prof
    assert _launch.observer is None
    assert prof.rows == [] and prof.wall_ms >= 0


@pytest.mark.parametrize("name, library", [("ra_prim_reduce_rows<float>", "prim"),
                                           ("ra_rocblas_gemm_f64mma<64, 64>", "rocblas"),
                                           ("cupy.zeros", "cupy"), ("my_kernel", "other")])
def test_library_of_a_kernel_name(name, library):
    assert _profile.library_of(name) == library


def _rows():
    Row = _profile.Row
    return [Row("ra_prim_reduce_rows<float>", "prim", (132, 1, 1), (256, 1, 1), 0, 0, start_ms=0.0, time_ms=0.25,
                bytes=1_000_000, flops=None),
            Row("ra_rocblas_gemm<float>", "rocblas", (64, 1, 1), (128, 1, 1), 1024, 0, start_ms=0.3, time_ms=2.0,
                bytes=None, flops=2 * 1000 ** 3),
            Row("ra_prim_reduce_rows<float>", "prim", (132, 1, 1), (256, 1, 1), 0, 0, start_ms=2.4, time_ms=0.25,
                bytes=1_000_000, flops=None),
            Row("cupy.zeros", "cupy", None, None, 0, 0, start_ms=2.7, time_ms=0.5)]


def test_the_table_sums_per_kernel_sorted_by_time():
    prof = _profile.Profile()
    prof.rows, prof.wall_ms = _rows(), 4.0
    text = prof.table(copy_gbs=4000.0)
    lines = text.splitlines()
    assert lines[0].split()[:2] == ["kernel", "lib"] and "%copy" in lines[0]
    assert lines[1].startswith("ra_rocblas_gemm<float>")  # 2.0 ms, the largest
    gemm = lines[1].split()
    assert gemm[2] == "1" and gemm[3] == "2.000" and gemm[-1] == "1.00"  # 2e9 flops in 2 ms: 1 TFLOP/s
    reduce = next(line for line in lines if line.startswith("ra_prim_reduce_rows")).split()
    assert reduce[2] == "2" and reduce[3] == "0.500" and reduce[6] == "4"  # 2e6 bytes in 0.5 ms: 4 GB/s
    assert any(line.startswith("cupy.zeros") for line in lines)
    assert lines[-1] == "4 launch(es), GPU time 3.000 ms, region wall time 4.000 ms"
    assert len(prof.table(limit=1).splitlines()) == 3


def test_the_chrome_trace_has_one_complete_event_per_row(tmp_path):
    prof = _profile.Profile()
    prof.rows = _rows()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    assert [e["name"] for e in events] == [r.name for r in prof.rows]
    assert all(e["ph"] == "X" for e in events)
    assert events[1]["ts"] == pytest.approx(300.0) and events[1]["dur"] == pytest.approx(2000.0)
    assert events[1]["args"]["flops"] == 2 * 1000 ** 3 and events[1]["args"]["grid"] == [64, 1, 1]


def test_the_plot_has_a_timeline_and_a_bar_chart():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    prof = _profile.Profile()
    prof.rows = _rows()
    fig = prof.plot(top=2)
    timeline, bars = fig.axes
    assert [t.get_text() for t in timeline.get_yticklabels()] == ["cupy", "prim", "rocblas"]
    assert len(bars.patches) == 2


def test_a_fallthrough_call_is_a_row_only_inside_a_profile(monkeypatch):
    def zeros(n):
        return [0] * n

    monkeypatch.setattr(_launch, "observer", None)
    assert _profile.fallthrough(zeros, "zeros") is zeros
    recorder = Recorder()
    monkeypatch.setattr(_launch, "observer", recorder)
    wrapped = _profile.fallthrough(zeros, "zeros")
    assert wrapped(3) == [0, 0, 0] and wrapped.__name__ == "zeros"
    assert recorder.events == [("begin", "cupy.zeros", None, None, 0), ("end", 1)]


def test_note_work_attaches_to_the_latest_row_of_the_thread(monkeypatch):
    row = _profile.Row("ra_x_y", "x", (1,), (1,), 0, 0)
    prof = _profile.Profile()
    prof._last.row = row
    monkeypatch.setattr(_launch, "observer", None)
    _launch.note_work(nbytes=10, flops=20)
    assert row.bytes is None  # no profile: nothing
    monkeypatch.setattr(_launch, "observer", prof)
    _launch.note_work(nbytes=10, flops=20)
    assert (row.bytes, row.flops) == (10, 20)


@pytest.mark.gpu
def test_a_profiled_region_on_the_gpu(rng, tmp_path):
    import cupy

    x = to_device(random_array(rng, 1_000_003, "float32"))
    ra.sum(x)  # compiled before the region
    with ra.profile() as prof:
        s = ra.sum(x)
        y = ra.sort(x)
        z = ra.zeros(5)  # CuPy does the work (an Array API façade function)
        c = ra.concatenate((z, z))  # a fall-through to CuPy
    assert ra.concatenate is cupy.concatenate  # outside a region: CuPy's own object
    assert float(s) == pytest.approx(float(np.sum(cupy.asnumpy(x), dtype=np.float64)), rel=1e-4)
    assert y.shape == x.shape and z.shape == (5,) and c.shape == (10,)
    names = [r.name for r in prof.rows]
    assert any(n.startswith("ra_prim_reduce") for n in names)
    assert any(n.startswith(("ra_prim_radix", "ra_prim_sort")) for n in names)  # the sort
    assert "cupy.zeros" in names and "cupy.concatenate" in names
    assert all(r.time_ms >= 0 and r.start_ms >= 0 for r in prof.rows)
    assert all(r.time_ms > 0 for r in prof.rows if r.library == "prim")  # kernels take time
    starts = [r.start_ms for r in prof.rows if r.library != "cupy"]
    assert starts == sorted(starts)  # one stream: issue order is time order
    assert "launch(es)" in prof.table()
    prof.export_chrome_trace(tmp_path / "t.json")
    assert len(json.loads((tmp_path / "t.json").read_text())["traceEvents"]) == len(prof.rows)
