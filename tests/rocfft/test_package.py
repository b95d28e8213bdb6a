"""The shape of the ``rocarray.rocfft`` package (CPU): the library never imports the ``numpy.fft``
façade (``rocarray.fft``), nor CuPy other than through ``backend.cupy()``, nor the core's
transition names."""

import ast
import pathlib

import rocarray.rocfft

PACKAGE = pathlib.Path(rocarray.rocfft.__file__).parent
TRANSITION = {"prepared_launch", "dependent_launch"}
LAUNCH_TRANSITION = {"cupy", "cuda_driver_entry", "partials_buffer", "allow_shared", "prefer_carveout", "occupancy",
                     "KernelTable", "shared_memory_limit", "per_call_seconds", "stream_key"}


def _modules():
    return sorted(PACKAGE.glob("*.py"))


def test_the_library_never_imports_the_facade_or_cupy():
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = {node.module or ""} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                names = {a.name for a in node.names}
            else:
                continue
            for name in names:
                assert not name.startswith("rocarray.fft"), (path.name, name)
                assert name.split(".")[0] != "cupy", (path.name, name)
                assert not set(name.split(".")) & TRANSITION, (path.name, name)


def test_the_library_uses_no_transition_names_of_the_launch_module():
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "launch":
                assert node.attr not in LAUNCH_TRANSITION, (path.name, node.attr)


def test_no_dated_notes_in_the_code():
    """Measurements and their dates live in docs/performance/rocfft.md, not in the code."""
    import re

    root = PACKAGE.parent
    paths = (_modules() + sorted((root / "fft").glob("*.py")) + [root / "_checks" / "rocfft.py"]
             + sorted((root / "_kernels" / "rocfft").glob("*.hip")))
    for path in paths:
        assert not re.search(r"20\d\d-[01]\d-[0-3]\d", path.read_text()), path
