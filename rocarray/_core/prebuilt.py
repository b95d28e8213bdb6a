"""Kernel binaries shipped with the package, so that the first call of a common family loads its
kernels instead of compiling them, even with an empty cache.

Compiling a module with NVRTC takes far longer than a vendor library's first call, which loads
kernels compiled in advance (docs/performance/core.md). The modules the first calls of the families in :data:`FAMILIES` load
(their common dtypes) ship as CUBINs under ``rocarray/_data/kernels/<arch>/``:

* ``<key>.cubin``: the binary NVRTC returned;
* ``manifest.json``: ``{"format": 1, "arch": ..., "cuda_major": ..., "compiler": "13.5",
  "entries": {key: {"file": "<key>.cubin", "size": ..., "sha256": ..., "names": {name expression:
  lowered name}, "source": ..., "name": ..., "families": [...]}}}``.

An entry's key is the binary cache's key of the module without the compiler's version
(:func:`rocarray._core.compile.module_key`): the pasted source, the options, the name expressions
and the architecture. A CUBIN for one architecture loads on every driver of its CUDA major version
or later, whichever NVRTC built it (PTX would not: it needs a driver at least as new as the
compiler). The one compile path (:func:`rocarray._core.compile.precompile`) looks here after the
user's binary cache and before compiling. An entry is used only when the manifest parses, the
entry's file is named by its key and the binary's size and SHA-256 match; nothing read is executed
or unpickled. A mismatch is ignored with a :class:`~rocarray._core.kernel_cache.KernelCacheWarning`
and the module compiles; a driver older than the binaries' CUDA major version skips them without
a warning; a binary the driver refuses compiles instead (``_BinaryModule``'s fallback).
``ROCARRAY_PREBUILT=0`` ignores the shipped binaries.

``python -m rocarray prebuild --arch sm_90`` (:func:`rocarray._core.prebuild.build`) compiles the
modules with the installed NVRTC (no GPU needed) and rewrites the folder;
:func:`rocarray._core.prebuild.problems` lists entries whose source changed since (the CPU tests
fail on any).
"""

import hashlib
import json
import threading
import warnings
from pathlib import Path

from rocarray._core import config
from rocarray._core.kernel_cache import KernelCacheWarning

FORMAT = 1
MANIFEST = "manifest.json"
#: The command that rebuilds the shipped binaries of an architecture.
COMMAND = "python -m rocarray prebuild --arch {arch}"

_STOCKHAM, _POINTWISE = "rocfft/stockham.hip", "rocfft/pointwise.hip"


def _pow2(real, logs, direction=-1, variant="stockham_pow2"):
    return tuple((_STOCKHAM, f"ra_rocfft_{variant}<{real}, {direction}, {log}>") for log in logs)


def _twiddles(real):
    return ((_POINTWISE, f"ra_rocfft_twiddles<{real}>"),)


def _radix(word, floats):
    source = "prim/radix_sort.hip"
    out = ((source, None), (source, f"ra_prim_radix_upsweep<{word}, {'true' if floats else 'false'}>"),
           (source, f"ra_prim_radix_onesweep<{word}, 0>"))
    return out + (((source, f"ra_prim_radix_lossy<{word}>"),) if floats else ())


def _prim(source, kernel, types, op):
    return tuple((f"prim/{source}", f"ra_prim_{kernel}<{t}, {t}, {op}>") for t in types)


#: family -> the modules (source under ``_kernels/``, name expression, or None for the source's
#: ``extern "C"`` kernels) that its first calls load on sm_90 for the dtypes and shape classes
#: shipped: the benchmarked first call (scripts/first_calls.py), its other common dtypes and the
#: tile or pass of large (4096) and small (128) sizes. tests/core/test_prebuilt.py traces each
#: family's first calls and checks them against these lists.
FAMILIES = {
    "sum": _prim("reduce.hip", "reduce_rows", ("float", "double", "ra_i64"), "ra_prim_red_op_add")
           + _prim("reduce.hip", "reduce_cols", ("float", "double"), "ra_prim_red_op_add"),
    "cumsum": _prim("scan.hip", "scan_rows_staged", ("float", "double", "ra_i64"), "ra_prim_op_add"),
    # integer keys share the float keys' passes; only their upsweep differs
    "sort": _radix("ra_u32", True) + _radix("ra_u64", True)[1:] + _radix("ra_u32", False)[1:2]
            + _radix("ra_u64", False)[1:2],
    "unique": (("prim/select.hip", "ra_prim_unique_minmax<ra_i64>"), ("prim/select.hip", "ra_prim_unique_count<ra_i64>"),
               ("prim/select.hip", "ra_prim_select<ra_u32, ra_u32>")),
    "matmul_f16": (("rocblas/gemm_wgmma.hip", "ra_rocblas_gemm_wgmma<ra_half, false, true, 128>"),
                   ("rocblas/gemm_wgmma.hip", "ra_rocblas_gemm_wgmma<ra_half, false, true, 256>")),
    "matmul_f32": (("rocblas/gemm_wgmma.hip", "ra_rocblas_gemm_wgmma_x3<false, true, 128, 128, false>"),
                   ("rocblas/gemm_wgmma.hip", "ra_rocblas_gemm_wg_finish<float>"),
                   ("rocblas/gemm_wgmma.hip", None),
                   ("rocblas/gemm_wgmma.hip", "ra_rocblas_gemm_wgmma<float, true, true, 128>"),
                   ("rocblas/gemm.hip", "ra_rocblas_gemm<float, 64, 64, 16, 4, 4, 1>")),
    "matmul_f64": (("rocblas/gemm.hip", "ra_rocblas_gemm_f64mma<64, 64, 16, 4, 0, 1, 128>"),
                   ("rocblas/gemm.hip", "ra_rocblas_gemm_f64mma<128, 128, 16, 3, 0, 1>")),
    "einsum": (("rocblas/gemm.hip", "ra_rocblas_gemm<float, 64, 64, 16, 4, 4, 1>"),),
    "fft_pow2": _twiddles("float") + _pow2("float", (4, 8)) + _pow2("float", (4, 8), 1)
                + _pow2("float", (10, 12), variant="stockham_pow2_rows")
                + _twiddles("double") + _pow2("double", (4, 8)),
    "fft_prime": _twiddles("float") + tuple((_POINTWISE, f"ra_rocfft_{k}<float>") for k in ("chirp", "multiply"))
                 + tuple((_POINTWISE, f"ra_rocfft_{k}<float, -1>") for k in ("chirp_pad", "chirp_filter", "chirp_extract"))
                 + _pow2("float", (5, 8)) + _pow2("float", (5, 8), 1),
    "rfft_pow2": _twiddles("float") + ((_STOCKHAM, "ra_rocfft_stockham<float, -1>"),
                                       (_STOCKHAM, "ra_rocfft_stockham_pow2_r2c_last<float, 8>"))
                 + _pow2("float", (8,)),
    "irfft_pow2": _twiddles("float") + ((_POINTWISE, "ra_rocfft_c2r_pre<float>"),
                                        (_STOCKHAM, "ra_rocfft_stockham<float, 1>")) + _pow2("float", (8,), 1),
    "fftn_pow2": _twiddles("float") + _pow2("float", (7,), variant="stockham_pow2_rows") + _pow2("float", (7,))
                 + _twiddles("double") + _pow2("double", (7,), variant="stockham_pow2_rows") + _pow2("double", (7,)),
}


def modules(families=None):
    """The distinct modules of ``families`` (default: all of :data:`FAMILIES`), in order:
    ``{(source, name): [family, ...]}``.

    Raises
    ------
    ValueError
        For a family that is not in :data:`FAMILIES`.
    """
    chosen = list(FAMILIES) if not families else list(families)
    unknown = [f for f in chosen if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown families {', '.join(unknown)}; known: {', '.join(FAMILIES)}")
    out = {}
    for family in chosen:
        for module in FAMILIES[family]:
            out.setdefault(module, []).append(family)
    return out


def folder(arch):
    """The folder of ``arch``'s shipped binaries (inside the package)."""
    return Path(__file__).resolve().parent.parent / "_data" / "kernels" / str(arch)


_lock = threading.Lock()
_manifests = {}  # arch -> entries dict (empty when absent or invalid)
_drivers = []    # the driver's CUDA major version, once read


def forget(arch):
    """Forget ``arch``'s manifest read so far (after a rebuild)."""
    with _lock:
        _manifests.pop(arch, None)


def clear_memo():
    """Forget the manifests and driver version read so far (tests; after a rebuild)."""
    with _lock:
        _manifests.clear()
        _drivers.clear()


def read_manifest(arch):
    """``arch``'s manifest as a dict, or None when there is none; an unreadable or malformed one is
    None after a :class:`KernelCacheWarning`."""
    path = folder(arch) / MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        _warn(f"cannot read the shipped kernel manifest {path} ({exc})")
        return None
    try:
        meta = json.loads(text)
        if (not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("arch") != arch
                or not isinstance(meta.get("entries"), dict) or not isinstance(meta.get("cuda_major"), int)):
            raise ValueError("not a manifest of this format and architecture")
    except ValueError as exc:
        _warn(f"the shipped kernel manifest {path} is invalid ({exc}); compiling instead")
        return None
    return meta


def _manifest(arch):
    meta = _manifests.get(arch)
    if meta is None:
        with _lock:
            meta = _manifests.get(arch)
            if meta is None:
                found = read_manifest(arch)
                meta = _manifests[arch] = found if found is not None and _driver_runs(found["cuda_major"]) else {}
    return meta


def driver_major():
    """The CUDA major version of the installed driver (``13`` for 13.0), or 0 when it cannot be read."""
    try:
        from rocarray._core import backend

        return int(backend.cupy().cuda.runtime.driverGetVersion()) // 1000
    except Exception:
        return 0


def _driver_runs(cuda_major):
    if not _drivers:
        _drivers.append(driver_major())
    return _drivers[0] >= cuda_major


def load(arch, key):
    """``(path of the binary, lowered names)`` of the shipped entry ``key`` of ``arch``, or None:
    none shipped, ``ROCARRAY_PREBUILT=0``, a driver older than the binaries' CUDA major version, or
    an entry that does not check out (warned).

    Parameters
    ----------
    arch : str
        ``'sm_90'``.
    key : str
        :func:`rocarray._core.compile.module_key` without a compiler version.
    """
    if not config.prebuilt_enabled():
        return None
    entries = _manifest(arch).get("entries", {})
    entry = entries.get(key)
    if entry is None:
        return None
    try:
        if not isinstance(entry, dict) or entry.get("file") != f"{key}.cubin":
            raise ValueError("the entry does not name its key's file")
        names = entry.get("names")
        if not isinstance(names, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in names.items()):
            raise ValueError("bad 'names'")
        path = folder(arch) / entry["file"]
        binary = path.read_bytes()
        if len(binary) != entry.get("size") or hashlib.sha256(binary).hexdigest() != entry.get("sha256"):
            raise ValueError("the binary does not match its size and digest")
    except (ValueError, OSError) as exc:
        _warn(f"shipped kernel {key[:16]}... of {arch} is invalid ({exc}); compiling instead")
        return None
    return path, names


def info():
    """``{arch: (entries, bytes of binaries)}`` of the shipped manifests."""
    out = {}
    base = folder("x").parent
    if not base.is_dir():
        return out
    for arch in sorted(p.name for p in base.iterdir() if p.is_dir()):
        meta = read_manifest(arch)
        if meta is not None:
            sizes = [e.get("size", 0) for e in meta["entries"].values() if isinstance(e, dict)]
            out[arch] = (len(sizes), int(sum(sizes)))
    return out


def _warn(message):
    warnings.warn(message, KernelCacheWarning, stacklevel=3)
