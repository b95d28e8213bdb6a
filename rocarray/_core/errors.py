"""rocarray's own exception types.

Errors that NumPy already names (``ValueError``, ``TypeError``, ``numpy.linalg.LinAlgError``,
``numpy.exceptions.AxisError``) are raised as those types; the classes here cover what NumPy has no
word for: a missing device and a kernel that fails to compile.
"""


class RocArrayError(Exception):
    """Base class of rocarray's own exceptions."""


class NoDeviceError(RocArrayError, RuntimeError):
    """No usable GPU: CuPy is missing, no driver is loaded, or no device is visible.

    The message says what was found missing and what to install.
    """


class KernelCompileError(RocArrayError, RuntimeError):
    """A HIP kernel source failed to compile for a target.

    Each parameter is kept as the attribute of the same name.

    Parameters
    ----------
    kernel : str
        The kernel (or template instantiation) that was being built.
    target : str
        The compile target, e.g. ``'sm_90'`` or ``'gfx942'``.
    log : str
        The compiler's log.
    source_path : str or None, optional
        Where the full pasted source was written (``ROCARRAY_DUMP_SOURCE_ON_ERROR=1``), else ``None``.
    """

    def __init__(self, kernel, target, log, source_path=None):
        self.kernel = kernel
        self.target = target
        self.log = log
        self.source_path = source_path
        where = f"\n(full source written to {source_path})" if source_path else ""
        super().__init__(f"failed to compile {kernel} for {target}:\n{log}{where}")
