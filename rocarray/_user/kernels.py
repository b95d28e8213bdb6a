"""Users' own kernels with rocarray's portability headers: ``ra.RawKernel``, ``ra.RawModule``,
``ra.ElementwiseKernel`` and ``ra.ReductionKernel``, with CuPy's signatures.

A user's source gets what rocarray's own kernels get: the headers of ``_kernels/include/`` pasted
in front (the warp size as ``RA_WARP_SIZE``, the warp helpers ``ra_shfl_*``/``ra_ballot`` with a
64-bit lane mask, ``ra_half``/``ra_bfloat16``/``ra_c64``/``ra_c128``, 64-bit index helpers) and
the ``-D`` defines describing the device (``RA_HIP`` or ``RA_CUDA``, ``RA_ARCH_*``). So one source
runs on AMD (wave64) and NVIDIA; :func:`rocarray.hipify` rewrites CUDA idioms into this form and
:func:`rocarray.compile_check` compiles a source for every target without a GPU.

``RawKernel`` and ``RawModule`` compile through rocarray's compile path: on NVIDIA with NVRTC into
rocarray's binary cache (a new process loads the binary without compiling), on ROCm through
CuPy's hiprtc. ``ElementwiseKernel`` and ``ReductionKernel`` are CuPy's code generators given the
headers and the defines (as ``#define`` lines) as their preamble (CuPy compiles them, keeping its own disk
cache). Every launch reports to an active :func:`rocarray.profile`. Arguments follow CuPy's rules.
"""

import threading

from rocarray._core import backend, compile as _compile, launch as _launch

_UNSUPPORTED = ("backend", "translate_cucomplex", "enable_cooperative_groups", "jitify")


def _check_cupy_only_options(where, **given):
    """CuPy options rocarray's compile path does not take: ``NotImplementedError`` naming one
    that is set to anything but CuPy's default."""
    defaults = {"backend": "nvrtc", "translate_cucomplex": False, "enable_cooperative_groups": False,
                "jitify": False}
    for name, value in given.items():
        if value != defaults[name]:
            raise NotImplementedError(
                f"{where}: {name}={value!r} is not supported (rocarray compiles every user source through its "
                "own path); use cupy's class for it")


def _options(options):
    if isinstance(options, str):
        return (options,)
    options = tuple(options)
    for opt in options:
        if not isinstance(opt, str):
            raise TypeError(f"options must be strings, got {type(opt).__name__}")
    return options


class RawModule:
    """A user's source of several kernels and template instantiations (``cupy.RawModule``'s
    signature), compiled with rocarray's portability headers per device on first use.

    Parameters
    ----------
    code : str, optional
        The source (no ``#include`` lines: the headers are pasted). Give this or ``path``.
    path : str, optional
        A file holding the source (CuPy's ``path`` loads a binary; here it is source text).
    options : sequence of str, optional
        Extra compiler options (e.g. ``('-DBLOCK=256',)``).
    backend : str, optional
        CuPy's; only ``'nvrtc'`` (the default) is accepted.
    translate_cucomplex, enable_cooperative_groups : bool, optional
        CuPy's; only False (the default) is accepted.
    name_expressions : sequence of str, optional
        Template instantiations to compile, e.g. ``['scale<float>', 'scale<double>']``.
    jitify : bool, optional
        CuPy's; only False (the default) is accepted.

    Raises
    ------
    TypeError, ValueError
        For a missing or doubled source, a non-string option, an ``#include`` line.
    KernelCompileError
        On the first :meth:`get_function`, with the compiler's log at the source's own line numbers.
    """

    def __init__(self, code=None, *, path=None, options=(), backend="nvrtc", translate_cucomplex=False,
                 enable_cooperative_groups=False, name_expressions=None, jitify=False):
        _check_cupy_only_options("RawModule", backend=backend, translate_cucomplex=translate_cucomplex,
                                 enable_cooperative_groups=enable_cooperative_groups, jitify=jitify)
        if (code is None) == (path is None):
            raise TypeError("RawModule: give exactly one of code and path")
        if path is not None:
            with open(path, encoding="utf-8") as f:
                code = f.read()
            label = str(path)
        else:
            label = "user_module"
        if not isinstance(code, str):
            raise TypeError(f"RawModule: code must be the source text (str), not {type(code).__name__}")
        for number, line in enumerate(code.splitlines(), 1):
            if line.lstrip().startswith("#include"):
                raise ValueError(f"RawModule: line {number} includes a header ({line.strip()}); rocarray pastes its "
                                 "own headers in front of the source and user sources include nothing")
        self.code, self.label = code, label
        self.options = _options(options)
        self.name_expressions = tuple(name_expressions or ())
        self._functions = {}
        self._lock = threading.Lock()

    def module(self, device_id=None):
        """The compiled module on ``device_id`` (default: the current device)."""
        return _compile.get_user_module(self.label, self.code, self.name_expressions, self.options, device_id)

    def compile(self, log_stream=None):
        """Compile for the current device now (CuPy's ``compile``; a no-op once compiled)."""
        self.module()

    def get_function(self, name):
        """The kernel ``name`` (an ``extern "C"`` name or one of the name expressions).

        Returns
        -------
        RawKernel
        """
        kernel = self._functions.get(name)
        if kernel is None:
            with self._lock:
                kernel = self._functions.setdefault(name, RawKernel._of_module(self, name))
        return kernel


class RawKernel:
    """One kernel of a user's source (``cupy.RawKernel``'s signature): ``kernel(grid, block,
    args, shared_mem=0)`` launches it on the current device and stream.

    Parameters
    ----------
    code : str
        The source (no ``#include`` lines: rocarray's headers are pasted in front).
    name : str
        The ``extern "C"`` kernel's name.
    options : sequence of str, optional
        Extra compiler options.
    backend : str, optional
        CuPy's; only ``'nvrtc'`` (the default) is accepted.
    translate_cucomplex, enable_cooperative_groups, jitify : bool, optional
        CuPy's; only False (the default) is accepted.

    Examples
    --------
    >>> import rocarray as ra
    >>> scale = ra.RawKernel(r'''
    ... extern "C" __global__ void scale(float* x, float a, long long n) {
    ...     for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) x[i] *= a;
    ... }''', "scale")
    >>> scale((64,), (256,), (x, numpy.float32(2), numpy.int64(x.size)))   # doctest: +SKIP
    """

    def __init__(self, code, name, options=(), backend="nvrtc", translate_cucomplex=False, *,
                 enable_cooperative_groups=False, jitify=False):
        _check_cupy_only_options("RawKernel", backend=backend, translate_cucomplex=translate_cucomplex,
                                 enable_cooperative_groups=enable_cooperative_groups, jitify=jitify)
        if not isinstance(name, str) or not name:
            raise TypeError("RawKernel: name must be the kernel's name (a non-empty str)")
        self._init(RawModule(code, options=options), name)

    @classmethod
    def _of_module(cls, module, name):
        kernel = cls.__new__(cls)
        kernel._init(module, name)
        return kernel

    def _init(self, module, name):
        self._module, self.name = module, name
        self._per_device = {}

    @property
    def code(self):
        return self._module.code

    @property
    def options(self):
        return self._module.options

    def function(self, device_id=None):
        """The compiled CuPy kernel on ``device_id`` (default: the current device)."""
        device = backend.device_info(device_id).id
        fn = self._per_device.get(device)
        if fn is None:
            fn = self._per_device[device] = self._module.module(device).get_function(self.name)
        return fn

    @property
    def attributes(self):
        """The compiled kernel's attributes on the current device (CuPy's dict)."""
        return self.function().attributes

    @property
    def max_dynamic_shared_size_bytes(self):
        return self.function().max_dynamic_shared_size_bytes

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value):
        self.function().max_dynamic_shared_size_bytes = value

    def __call__(self, grid, block, args, *, shared_mem=0):
        _launch.launch_with_cupy_arguments(self.function(), grid, block, args, shared_mem,
                                           name=f"ra_user_{self.name}")


def _define_lines(target):
    """The compile layer's ``-D`` defines for ``target`` as ``#define`` lines: CuPy's reduction
    paths (CUB through Jitify among them) do not all pass a kernel's ``options`` on."""
    lines = []
    for opt in _compile.options(target):
        if opt.startswith("-D"):
            name, _, value = opt[2:].partition("=")
            lines.append(f"#define {name} {value or 1}\n")
    return "".join(lines)


def _header_preamble(target, preamble):
    return f"{_define_lines(target)}{_compile.header_text()}// ---- user preamble ----\n{preamble}"


class _Generated:
    """A CuPy code-generating kernel built per device with rocarray's headers and defines."""

    _cupy_class = None

    def __init__(self, args, kwargs, name):
        self._args, self._kwargs, self.name = args, kwargs, name
        self._per_device = {}
        self._lock = threading.Lock()

    def kernel(self, device_id=None):
        """CuPy's kernel object for ``device_id`` (default: the current device)."""
        info = backend.device_info(device_id)
        kernel = self._per_device.get(info.id)
        if kernel is None:
            with self._lock:
                kernel = self._per_device.get(info.id)
                if kernel is None:
                    kwargs = dict(self._kwargs)
                    # the defines only: CuPy chooses the standard and the architecture of its kernels
                    kwargs["preamble"] = _header_preamble(info.target, kwargs.get("preamble", ""))
                    kwargs["options"] = _options(kwargs.get("options", ()))
                    cls = getattr(backend.cupy(), self._cupy_class)
                    kernel = self._per_device[info.id] = cls(*self._args, **kwargs)
        return kernel

    def __call__(self, *args, **kwargs):
        kernel = self.kernel()
        watch = _launch.observer
        if watch is None:
            return kernel(*args, **kwargs)
        token = watch.begin(f"ra_user_{self.name}", None, None, 0)
        try:
            return kernel(*args, **kwargs)
        finally:
            watch.end(token)


class ElementwiseKernel(_Generated):
    """``cupy.ElementwiseKernel`` with rocarray's portability headers and defines: the same
    parameters (``in_params, out_params, operation, name='kernel', reduce_dims=True, preamble='',
    no_return=False, return_tuple=False, **kwargs`` with ``options``, ``loop_prep``,
    ``after_loop``) and the same call, broadcasting and dtype rules.

    Parameters
    ----------
    in_params, out_params : str
        CuPy's parameter lists (``'T x, raw T y'``, ``'float32 z'``).
    operation : str
        The per-element code; rocarray's helpers and defines are usable in it.
    name : str, optional
        The kernel's name (profiles show ``ra_user_<name>``).
    reduce_dims : bool, optional
        CuPy's.
    preamble : str, optional
        Code placed after rocarray's headers, before the kernel.
    no_return, return_tuple : bool, optional
        CuPy's.
    **kwargs
        CuPy's ``options``, ``loop_prep``, ``after_loop``.

    Examples
    --------
    >>> import rocarray as ra
    >>> lane = ra.ElementwiseKernel("T x", "int32 y", "y = (int)(i % RA_WARP_SIZE)", "lane")
    >>> lane(x)                                     # doctest: +SKIP
    """

    _cupy_class = "ElementwiseKernel"

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True, preamble="",
                 no_return=False, return_tuple=False, **kwargs):
        kwargs.update(reduce_dims=reduce_dims, preamble=preamble, no_return=no_return, return_tuple=return_tuple)
        super().__init__((in_params, out_params, operation, name), kwargs, name)


class ReductionKernel(_Generated):
    """``cupy.ReductionKernel`` with rocarray's portability headers and defines: the same
    parameters (``in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
    name='reduce_kernel', reduce_type=None, reduce_dims=True, preamble='', options=()``) and the same
    call (``axis``, ``keepdims``, ``out``).

    Parameters
    ----------
    in_params, out_params : str
        CuPy's parameter lists.
    map_expr, reduce_expr, post_map_expr, identity : str
        CuPy's expressions (``a``/``b`` the reduced values, ``y`` the output).
    name : str, optional
        The kernel's name (profiles show ``ra_user_<name>``).
    reduce_type : str, optional
        The type of the reduced values (default: the input's).
    reduce_dims : bool, optional
        CuPy's.
    preamble : str, optional
        Code placed after rocarray's headers, before the kernel.
    options : sequence of str, optional
        Extra compiler options.
    """

    _cupy_class = "ReductionKernel"

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="", options=()):
        kwargs = dict(reduce_type=reduce_type, reduce_dims=reduce_dims, preamble=preamble, options=options)
        super().__init__((in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name), kwargs,
                         name)
