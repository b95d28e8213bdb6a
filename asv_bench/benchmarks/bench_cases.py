"""rocarray's asv benchmarks, generated from the benchmark cases of ``python -m rocarray bench``.

A benchmark is declared once, as a :class:`rocarray._core.harness.BenchCase` registered by a
module of ``rocarray/_checks/``: its ``setup()`` makes fresh random device data, its
``rocarray(*args)`` and ``vendor(*args)`` run the operation once each. This module turns the
registry into one parametrized asv class per library (``Prim``, ``Rocblas``, ``Rocfft``, ...),
whose ``params`` are the names of that library's registered cases:

* ``setup(name)`` skips (``NotImplementedError`` with the reason) without a GPU or when the case's
  vendor twin is not installed (:class:`~rocarray._core.harness.Unavailable`), else runs the
  case's ``setup()`` (fresh random data), then both functions once and a device sync, so kernel
  compilation and first-call caches are paid before asv calibrates its timed loop;
* ``time_rocarray(name)`` runs ``case.rocarray(*args)``, then a device sync, so asv's wall-clock
  timer sees the device time; ``time_vendor(name)`` the same with ``case.vendor``, on the same data;
* ``teardown(name)`` drops the data and returns the memory pool's blocks.

Loading the registry (:func:`rocarray._core.harness.load_all`) imports rocarray and
``rocarray/_checks/*`` only: no CuPy, no device, so discovery works anywhere rocarray imports.
"""

from rocarray._core import harness

from . import _base


class _Cases:
    """The registered benchmark cases of one library as one parametrized asv benchmark."""

    #: the library whose cases this class runs (set by the generator)
    library = None
    param_names = ["case"]
    #: seconds before asv gives up on one case
    timeout = 300
    #: seconds of untimed calls before asv starts measuring (after the warm calls in setup)
    warmup_time = 0.25
    #: asv's target duration of one timed sample
    sample_time = 0.02

    def setup(self, name):
        _base.require_gpu()
        self.case = _CASES[name]
        try:
            args = self.case.setup()
        except harness.Unavailable as exc:  # the vendor twin is not installed: asv's skip
            raise NotImplementedError(str(exc)) from None
        self.args = () if args is None else tuple(args) if isinstance(args, (tuple, list)) else (args,)
        self.case.rocarray(*self.args)
        self.case.vendor(*self.args)
        _base.sync()

    def teardown(self, name):
        if getattr(self, "args", None) is not None:
            self.args = None
            from rocarray._core import backend

            backend.cupy().get_default_memory_pool().free_all_blocks()

    def time_rocarray(self, name):
        self.case.rocarray(*self.args)
        _base.sync()

    def time_vendor(self, name):
        self.case.vendor(*self.args)
        _base.sync()


def _generate(cases):
    """One :class:`_Cases` subclass per library of ``cases``, by class name."""
    names = {}
    for case in cases:
        names.setdefault(case.library, []).append(case.name)
    return {library.capitalize(): type(library.capitalize(), (_Cases,), {
        "__module__": __name__,
        "__doc__": f"The registered ``{library}`` benchmark cases (``python -m rocarray bench --filter {library}.``).",
        "library": library,
        "params": [names[library]],
    }) for library in sorted(names)}


harness.load_all()
#: every registered case by name
_CASES = {case.name: case for case in harness.bench_cases()}
globals().update(_generate(_CASES.values()))
