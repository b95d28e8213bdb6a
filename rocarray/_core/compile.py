"""The one place that turns HIP kernel sources into launchable kernels.

A kernel source is a ``.hip`` file under ``rocarray/_kernels/<library>/``. It never ``#include``\\ s
anything (CuPy's hiprtc path drops such lines): this module pastes the headers of
``_kernels/include/`` in front of it as text, adds the ``-D`` defines that describe the target
(``RA_WARP_SIZE``, ``RA_HIP``/``RA_CUDA``, arch flags) and builds modules on demand: one per
template instantiation (the name expression alone) and one per source for its ``extern "C"``
kernels, per device. A source with a hundred registered instantiations thus costs a user only the
ones they call. Modules are memoized in-process per device. On NVIDIA devices the binaries go
through rocarray's own cache (:mod:`rocarray._core.kernel_cache`): a new process loads them
without compiling; with an empty cache, the binaries shipped with the package for the first calls
of common families (:mod:`rocarray._core.prebuilt`) load before anything compiles. On ROCm devices
CuPy's ``RawModule`` compiles with hiprtc.

Libraries declare the template instantiations they launch with :func:`register` at import time,
so the offline compile matrix (:mod:`rocarray._core.offline`, whose ``import_all_libraries``
imports every module) builds exactly what runs.
"""

import os
import threading

from rocarray._core import backend, config, kernel_cache, prebuilt
from rocarray._core.errors import KernelCompileError

# Headers in the order they are pasted; every file of _kernels/include/ must be listed here.
HEADER_ORDER = (
    "ra_prelude.cuh",
    "ra_types.cuh",
    "ra_math.cuh",
    "ra_warp.cuh",
    "ra_async.cuh",
    "ra_wgmma.cuh",
    "ra_grid.cuh",
)

# AMD architectures with matrix-core (MFMA) instructions, and the CDNA3+ subset.
_MFMA_ARCHS = ("gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950")
_CDNA3_ARCHS = ("gfx940", "gfx941", "gfx942", "gfx950")
# NVIDIA architectures compiled for their architecture-specific variant (the kernels then run only
# on that exact compute capability, which is the device they are compiled for).
_ARCH_SPECIFIC = {"sm_90": "sm_90a"}

_registry = {}  # source path -> set of name expressions
_registry_lock = threading.Lock()
_modules = {}  # (source path, name expression or None, device id) -> cupy.RawModule
_modules_lock = threading.Lock()


# --------------------------------------------------------------------------------------------
# sources
# --------------------------------------------------------------------------------------------

def _kernels_root():
    import importlib.resources

    return importlib.resources.files("rocarray._kernels")


def read_text(relative_path):
    """Text of a file under ``rocarray/_kernels/`` (e.g. ``'rocblas/level1.hip'``).

    A source outside the package (a test-only kernel) is named by its absolute path; it then goes
    through exactly the same paste/register/compile path as the package's own sources.
    """
    if os.path.isabs(relative_path):
        with open(relative_path, encoding="utf-8") as f:
            return f.read()
    node = _kernels_root()
    for part in relative_path.split("/"):
        node = node / part
    return node.read_text(encoding="utf-8")


def source_files():
    """Every ``.hip`` source under ``_kernels/`` as ``'<library>/<file>.hip'``, sorted."""
    found = []
    for library in _kernels_root().iterdir():
        if library.is_dir() and library.name not in ("include", "__pycache__"):
            found.extend(f"{library.name}/{f.name}" for f in library.iterdir() if f.name.endswith(".hip"))
    return sorted(found)


def header_files():
    """Every ``.cuh`` header under ``_kernels/include/``, sorted."""
    return sorted(f.name for f in (_kernels_root() / "include").iterdir() if f.name.endswith(".cuh"))


def _strip_pragma_once(text):
    return "\n".join(line for line in text.splitlines() if line.strip() != "#pragma once")


def header_text():
    """All headers of ``_kernels/include/`` pasted together in :data:`HEADER_ORDER`."""
    parts = []
    for name in HEADER_ORDER:
        parts.append(f"// ---- rocarray header {name} ----")
        parts.append(_strip_pragma_once(read_text(f"include/{name}")))
    return "\n".join(parts) + "\n"


def full_source(relative_path):
    """The text a compiler sees for one source file: headers, then the source."""
    return f"{header_text()}// ---- {relative_path} ----\n{read_text(relative_path)}"


def options(target):
    """Compiler options (``-std`` and ``-D`` defines) describing ``target``.

    Parameters
    ----------
    target : rocarray._core.backend.Target
    """
    opts = ["-std=c++17", f"-DRA_WARP_SIZE={int(target.warp_size)}"]
    arch = target.arch
    opts.append(f"-DRA_ARCH_{arch.upper()}=1")
    if target.is_hip:
        opts.append("-DRA_HIP=1")
        if arch in _MFMA_ARCHS:
            opts.append("-DRA_AMD_MFMA=1")
        if arch in _CDNA3_ARCHS:
            opts.append("-DRA_AMD_CDNA3=1")
    else:
        opts.append("-DRA_CUDA=1")
        opts.append(f"-DRA_CUDA_ARCH={int(arch.split('_')[1]) * 10}")
        if arch in _ARCH_SPECIFIC:
            # sm_90a: the architecture-specific instructions (wgmma) of exactly this chip; NVRTC
            # keeps this target when CuPy appends its generic -arch=sm_90 after these options.
            opts.append(f"-arch={_ARCH_SPECIFIC[arch]}")
    return tuple(opts)


# --------------------------------------------------------------------------------------------
# registry of template instantiations
# --------------------------------------------------------------------------------------------

def register(source, names):
    """Declare the template instantiations of ``source`` that a library launches.

    Parameters
    ----------
    source : str
        Path under ``_kernels/``, e.g. ``'rocblas/level1.hip'`` (or the absolute path of a
        test-only source, see :func:`read_text`).
    names : iterable of str
        Name expressions such as ``'ra_rocblas_dot<float, float>'``. ``extern "C"`` kernels need
        no registration.
    """
    names = [str(n) for n in names]
    with _registry_lock:
        _registry.setdefault(source, set()).update(names)


def registered(source=None):
    """Registered name expressions: a sorted tuple for ``source``, or a dict of all sources."""
    with _registry_lock:
        if source is not None:
            return tuple(sorted(_registry.get(source, ())))
        return {path: tuple(sorted(names)) for path, names in _registry.items()}


# --------------------------------------------------------------------------------------------
# runtime compilation
# --------------------------------------------------------------------------------------------

def _dump_source(relative_path, target, text):
    folder = config.cache_dir() / "failed-sources"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{relative_path.replace('/', '_')}.{target.arch}.hip"
    path.write_text(text, encoding="utf-8")
    return str(path)


def compile_error(relative_path, name, target, log, text):
    """Build the :class:`KernelCompileError` for a failed compile (dumping the source if asked)."""
    where = None
    if config.dump_source_on_error():
        try:
            where = _dump_source(relative_path, target, text)
        except OSError as exc:  # an unwritable cache dir must not hide the compiler's log
            log = f"{log}\n(could not write the source to the cache dir: {exc})"
    return KernelCompileError(f"{name} ({relative_path})", target.arch, log, where)


def nvrtc():
    """CuPy's NVRTC bindings (``cupy_backends.cuda.libs.nvrtc``), or None where they cannot be used
    (no CuPy, no NVRTC library, a ROCm build)."""
    try:
        from cupy_backends.cuda.libs import nvrtc as bindings

        bindings.getVersion()
    except Exception:
        return None
    return bindings


def nvrtc_compile(relative_path, target, text, opts, names):
    """Compile ``text`` with NVRTC: ``(lowered names, binary)`` (CUBIN for an ``-arch=sm_*`` option).

    Parameters
    ----------
    relative_path : str
        The source's path under ``_kernels/`` (for messages and the program name).
    target : Target
        For messages.
    text : str
        The pasted source (:func:`full_source`).
    opts : sequence of str
        Every compiler option.
    names : sequence of str
        Name expressions to instantiate; their lowered names come back.

    Raises
    ------
    KernelCompileError
        With NVRTC's log when compilation fails.
    """
    bindings = nvrtc()
    if bindings is None:
        raise RuntimeError("NVRTC is not available (pip install nvidia-cuda-nvrtc)")
    prog = bindings.createProgram(text, relative_path.replace("/", "_") + ".cu", [], [])
    try:
        for name in names:
            bindings.addNameExpression(prog, name)
        try:
            bindings.compileProgram(prog, list(opts))
        except bindings.NVRTCError:
            log = bindings.getProgramLog(prog)
            raise compile_error(relative_path, ", ".join(names) or "module", target, log, text) from None
        lowered = {name: bindings.getLoweredName(prog, name) for name in names}
        binary = bindings.getCUBIN(prog)
    finally:
        bindings.destroyProgram(prog)
    return lowered, binary


def nvrtc_options(target, compute_capability):
    """Every NVRTC option of a run-time compile for an NVIDIA device of ``compute_capability``
    (``'9.0'`` or ``'90'``), in the order CuPy's own ``RawModule`` compile passes them: rocarray's
    :func:`options`, flush-to-zero, the device's ``-arch=sm_*`` and CuPy's default execution space,
    so a cached binary is the one CuPy would build."""
    cc = str(compute_capability).replace(".", "")
    return options(target) + ("-ftz=true", f"-arch=sm_{cc}", "--device-as-default-execution-space")


def runtime_options(info):
    """:func:`nvrtc_options` of the device ``info`` describes; None when NVRTC cannot build a
    CUBIN for it (CuPy's PTX path then compiles)."""
    bindings = nvrtc()
    if bindings is None:
        return None
    cc = str(info.compute_capability).replace(".", "")
    try:
        if int(cc) > max(int(a) for a in bindings.getSupportedArchs()):
            return None
    except Exception:
        return None
    return nvrtc_options(info.target, cc)


def module_key(arch, opts, names, text, compiler_version=None):
    """The key of one module's binary: a digest of the pasted ``text``, the options, the name
    expressions, the architecture and the compiler's version. Without a version it is the key of
    the shipped binaries (:mod:`rocarray._core.prebuilt`), built once for every compiler version
    of a CUDA major version."""
    if compiler_version is None:
        return kernel_cache.key("runtime", "nvrtc", arch, opts, names, text)
    return kernel_cache.key("runtime", "nvrtc", compiler_version, arch, opts, names, text)


_private_dir = []  # a temporary folder for binaries when the cache cannot be written
_private_lock = threading.Lock()


def _private_file(entry_key, binary):
    import atexit
    import shutil
    import tempfile

    with _private_lock:
        if not _private_dir:
            folder = tempfile.mkdtemp(prefix="rocarray-kernels-")
            atexit.register(shutil.rmtree, folder, True)
            _private_dir.append(folder)
    path = os.path.join(_private_dir[0], f"{entry_key}.bin")
    with open(path, "wb") as f:
        f.write(binary)
    return path


class _BinaryModule:
    """A module loaded from a cached binary: ``get_function(name expression)`` through the lowered
    names recorded when it was compiled. Where the driver refuses the binary, the module compiles
    through CuPy instead (once, with a warning) and serves every later lookup from there."""

    def __init__(self, module, lowered, fallback):
        self._module, self._lowered, self._fallback = module, lowered, fallback
        self._lock = threading.Lock()

    def get_function(self, name):
        module = self._module
        try:
            return module.get_function(self._lowered.get(name, name))
        except Exception as exc:
            driver = backend.cupy().cuda.driver
            if not isinstance(exc, getattr(driver, "CUDADriverError", ())):
                raise
            import warnings

            warnings.warn(f"the cached kernel binary was refused by the driver ({exc}); compiling it again",
                          kernel_cache.KernelCacheWarning, stacklevel=2)
            with self._lock:
                if self._module is module:
                    self._module, self._lowered = self._fallback(), {}
            return self._module.get_function(name)


def _cached_module(relative_path, info, text, name):
    """The module of one instantiation (or the ``extern "C"`` kernels) through rocarray's binary
    cache, compiling with NVRTC on a miss; None where that path does not apply (a ROCm device, no
    NVRTC, an architecture NVRTC has no CUBIN for)."""
    opts = runtime_options(info)
    if opts is None:
        return None
    path, lowered = precompile(relative_path, name, info.arch, opts, text)
    module = backend.cupy().RawModule(path=str(path))
    return _BinaryModule(module, lowered, lambda: _cupy_module(relative_path, info, text, name))


def precompile(relative_path, name, arch, opts, text=None):
    """The binary of one instantiation (``name``; None: the ``extern "C"`` kernels):
    ``(path of the binary, lowered names)``, from rocarray's binary cache, else from the binaries
    shipped with the package (:mod:`rocarray._core.prebuilt`), else compiled with NVRTC into the
    cache. Needs no device, so ``python -m rocarray warmup`` runs it in worker processes.

    Parameters
    ----------
    relative_path : str
        Source under ``_kernels/``.
    name : str or None
        A registered name expression.
    arch : str
        The device's architecture (``'sm_90'``), the cache's folder.
    opts : tuple of str
        :func:`runtime_options` of the device.
    text : str, optional
        The pasted source (default: :func:`full_source`).
    """
    text = full_source(relative_path) if text is None else text
    names = [name] if name else []
    entry_key = module_key(arch, opts, names, text, nvrtc().getVersion())
    found = kernel_cache.load(arch, entry_key)
    if found is not None:
        return found
    found = prebuilt.load(arch, module_key(arch, opts, names, text))
    if found is not None:
        return found
    lowered, binary = nvrtc_compile(relative_path, backend.Target("cuda", arch, 32), text, opts, names)
    path = kernel_cache.store(arch, entry_key, binary, lowered)
    if path is None:
        path = _private_file(entry_key, binary)
    return path, lowered


def _cupy_module(relative_path, info, text, name):
    """The module compiled by CuPy's ``RawModule`` (hiprtc on ROCm; CuPy keeps its own disk cache)."""
    cupy = backend.cupy()
    target = info.target
    module = cupy.RawModule(
        code=text,
        options=options(target),
        name_expressions=[name] if name else None,
    )
    try:
        with cupy.cuda.Device(info.id):
            module.compile()
    except cupy.cuda.compiler.CompileException as exc:
        log = exc.get_message() if hasattr(exc, "get_message") else str(exc)
        raise compile_error(relative_path, name or "module", target, log, text) from None
    return module


def _build_module(relative_path, info, name=None):
    """Compile ``relative_path`` for ``info``'s device: with ``name`` (a template name expression)
    only that instantiation, else the source's ``extern "C"`` kernels. NVIDIA devices load from
    rocarray's binary cache (:mod:`rocarray._core.kernel_cache`), compiling on a miss; ROCm devices
    compile through CuPy."""
    text = full_source(relative_path)
    if not info.is_hip:
        module = _cached_module(relative_path, info, text, name)
        if module is not None:
            return module
    return _cupy_module(relative_path, info, text, name)


def get_module(relative_path, device_id=None, name=None):
    """The compiled ``cupy.RawModule`` holding one kernel of a source file on one device (memoized).

    Parameters
    ----------
    relative_path : str
        Source under ``_kernels/``.
    device_id : int, optional
        Default: CuPy's current device.
    name : str, optional
        A registered template name expression: the module holds that instantiation. ``None``:
        the module of the source's ``extern "C"`` kernels.
    """
    info = backend.device_info(device_id)
    key = (relative_path, name, info.id)
    module = _modules.get(key)
    if module is None:
        with _modules_lock:
            module = _modules.get(key)
            if module is None:
                module = _modules[key] = _build_module(relative_path, info, name)
    return module


def get_kernel(relative_path, name, device_id=None):
    """A launchable kernel: ``kernel(grid, block, args, shared_mem=0)``.

    Parameters
    ----------
    relative_path : str
        Source under ``_kernels/``, e.g. ``'rocblas/level1.hip'``.
    name : str
        An ``extern "C"`` kernel name, or a registered template name expression.
    device_id : int, optional
        Default: CuPy's current device.

    Returns
    -------
    cupy.RawKernel
    """
    template = "<" in name
    if template and name not in registered(relative_path):
        raise LookupError(
            f"{name} is not registered for {relative_path}; call rocarray._core.compile.register()"
        )
    return get_module(relative_path, device_id, name if template else None).get_function(name)


_user_modules = {}  # (text digest, names, options, device id) -> module


def user_source(label, code):
    """The text a compiler sees for a user's source: rocarray's headers, then the source, whose
    lines keep their own numbers in compiler messages (a ``#line`` directive)."""
    return f'{header_text()}// ---- {label} ----\n#line 1 "{label}"\n{code}'


def get_user_module(label, code, name_expressions=(), extra_options=(), device_id=None):
    """The compiled module of a user's source (:mod:`rocarray._user.kernels`) on one device:
    rocarray's headers pasted in front (:func:`user_source`), rocarray's options for the device
    plus ``extra_options``, every name expression instantiated in one program (as CuPy's
    ``RawModule`` does). NVIDIA devices load from the binary cache, compiling with NVRTC on a miss;
    ROCm devices compile through CuPy. Memoized per source, names, options and device.

    Raises
    ------
    KernelCompileError
        With the compiler's log.
    """
    import hashlib

    info = backend.device_info(device_id)
    text = user_source(label, code)
    names = tuple(name_expressions)
    extra = tuple(extra_options)
    key = (hashlib.sha256(text.encode()).hexdigest(), names, extra, info.id)
    module = _user_modules.get(key)
    if module is None:
        with _modules_lock:
            module = _user_modules.get(key)
            if module is None:
                module = _user_modules[key] = _build_user_module(label, text, names, extra, info)
    return module


def _build_user_module(label, text, names, extra, info):
    cupy = backend.cupy()

    def through_cupy():
        module = cupy.RawModule(code=text, options=options(info.target) + extra,
                                name_expressions=list(names) or None)
        try:
            with cupy.cuda.Device(info.id):
                module.compile()
        except cupy.cuda.compiler.CompileException as exc:
            log = exc.get_message() if hasattr(exc, "get_message") else str(exc)
            raise compile_error(label, ", ".join(names) or "module", info.target, log, text) from None
        return module

    opts = None if info.is_hip else runtime_options(info)
    if opts is None:
        return through_cupy()
    opts = opts + extra
    entry_key = kernel_cache.key("user", "nvrtc", nvrtc().getVersion(), info.arch, opts, names, text)
    found = kernel_cache.load(info.arch, entry_key)
    if found is None:
        lowered, binary = nvrtc_compile(label, info.target, text, opts, names)
        path = kernel_cache.store(info.arch, entry_key, binary, lowered)
        found = (path if path is not None else _private_file(entry_key, binary)), lowered
    path, lowered = found
    return _BinaryModule(cupy.RawModule(path=str(path)), lowered, through_cupy)


def compiled_modules():
    """``(source, device id)`` pairs with at least one module built in this process."""
    return sorted({(source, device) for source, _, device in _modules})
