"""The fixture every rocblas test module imports (``from rocblas_fixtures import fresh_prepared_launches``):
an autouse fixture applies to the modules that import it."""

import pytest


@pytest.fixture(autouse=True)
def fresh_prepared_launches(monkeypatch):
    """Each test starts with an empty plan cache: the plans earlier calls prepared (warm paths,
    remembered tile choices, prepared launches) must not stand in for what a test forces (tiles,
    kernels, configurations, stand-in devices)."""
    from rocarray._core import plans

    monkeypatch.setattr(plans, "cache", plans.PlanCache())


def refuse_launches(monkeypatch):
    """Fail (instead of launching on fake memory) when anything reaches a kernel: every launch,
    immediate or prepared, goes through :class:`rocarray._core.kernels.Kernel`."""
    from rocarray._core import kernels

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(kernels.Kernel, "__call__", refuse)
    monkeypatch.setattr(kernels.Kernel, "prepare", refuse)


class RecordingKernel:
    """A compiled-kernel stand-in (what :func:`rocarray._core.compile.get_kernel` returns) that
    records each launch in ``calls`` as ``(name, grid, block, args, shared_mem)``, the block as a
    tuple, the arguments as the kernel receives them (NumPy scalars, size-one arrays), and each
    carveout asked for in ``carveouts``."""

    def __init__(self, name, calls, carveouts):
        self.name, self.calls, self.carveouts = name, calls, carveouts
        self.max_dynamic_shared_size_bytes = 48 * 1024

    @property
    def preferred_shared_memory_carveout(self):
        return None

    @preferred_shared_memory_carveout.setter
    def preferred_shared_memory_carveout(self, percent):
        self.carveouts.append((self.name, percent))

    def __call__(self, grid, block, args, shared_mem=0):
        self.calls.append((self.name, grid, tuple(block) if isinstance(block, tuple) else (block,), tuple(args),
                           shared_mem))


def record_launches(monkeypatch, *modules, wave=None, multiprocessors=132, calls=None):
    """Launch the kernels of ``modules`` (their ``KERNELS`` families, made afresh) on
    :class:`RecordingKernel` stand-ins; returns ``(calls, carveouts)`` (``calls``: the list given,
    or a new one). ``wave``: what ``Kernel.wave`` answers (else the occupancy bound times
    ``multiprocessors``, which the stand-in device reports)."""
    import types

    from rocarray._core import backend, compile as _compile, kernels

    calls, carveouts = ([] if calls is None else calls), []
    for module in modules:
        old = module.KERNELS
        monkeypatch.setattr(module, "KERNELS", kernels.Family(old.source, old.block, old.limit))
    monkeypatch.setattr(_compile, "get_kernel",
                        lambda source, name, device_id=None: RecordingKernel(name, calls, carveouts))
    info = types.SimpleNamespace(multiprocessors=multiprocessors, warp_size=32, is_hip=False)
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: info)
    if wave is not None:
        monkeypatch.setattr(kernels.Kernel, "wave", lambda self, device_id: wave)
    return calls, carveouts
