"""The convolution algorithms, gathered from the modules that implement them.

An algorithm is an object with

* ``name`` (str, unique; what ``algo=`` and the find-db name),
* ``fuses_epilogue`` (bool: ``run`` applies ``bias`` and ``activation`` itself in the forward
  direction; otherwise the caller applies them after),
* ``applicable(problem) -> bool`` (host-only, cheap: sizes, dtype, layout, direction, device),
* ``run(problem, x, w, y, *, bias=None, activation=None)``: for ``"forward"`` reads ``x`` and
  ``w`` and writes every element of ``y``; for ``"backward_data"`` reads ``y`` (``dy``) and ``w``
  and writes every element of ``x`` (``dx``); for ``"backward_weights"`` reads ``x`` and ``y``
  (``dy``) and writes every element of ``w`` (``dw``). Arrays are contiguous in the problem's
  layout (:mod:`rocarray.miopen._conv_problem`); scratch comes from the one workspace owner.
"""

import importlib

#: Modules holding algorithms, each with a list ``ALGORITHMS``; the order is the order of preference
#: among equals.
_MODULES = ("_conv_implicit_gemm", "_conv_winograd", "_conv_gemm", "_conv_depthwise", "_conv_direct", "_conv_fft")
_algorithms = {}


def algorithms():
    """Every algorithm by name (imported on first use)."""
    if not _algorithms:
        for module in _MODULES:
            for algorithm in importlib.import_module(f"rocarray.miopen.{module}").ALGORITHMS:
                if algorithm.name in _algorithms:
                    raise RuntimeError(f"two convolution algorithms are named {algorithm.name!r}")
                _algorithms[algorithm.name] = algorithm
    return _algorithms


def applicable(problem):
    """The algorithms that can run ``problem``, in the order of preference."""
    return [a for a in algorithms().values() if a.applicable(problem)]
