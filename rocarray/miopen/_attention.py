"""Fused scaled dot-product attention: flash attention forward and backward (``attention.hip``).

The forward pass is the flash attention of Dao et al. 2022: a block of queries loops over tiles
of keys and values with an online softmax, so the L x S scores are never stored; it writes the
output and the log-sum-exp of every query's scores. The backward pass follows FlashAttention-2
(Dao 2023): the probabilities are recomputed from the log-sum-exp, ``D = rowsum(dO * O)`` is
computed first, one kernel sums dK and dV over the query tiles for a tile of keys (over every
query head of the group) and another sums dQ over the key tiles for a tile of queries, so no
gradient is accumulated with atomics and results repeat bit for bit.

Tiles (``attention.hip``'s header says how lanes own elements): both head dimensions are padded
to a class ``D`` of 64, 128 or 256 (:data:`HEAD_DIMS`); ``D / 16`` lanes own a row of the block's
``2048 / D`` rows; the other operand streams through shared memory in tiles of :func:`tile_rows`
rows, converted to the accumulation type (float32, float64 for float64 data).

The forward pass has a second variant for float16/bfloat16 with head dimensions up to 128,
``"mma"`` (FlashAttention-2's forward): 128 queries per block, 32 per 32-lane group, both
products on 16 x 8 x 16 matrix tiles (mma.sync on NVIDIA sm_80+; a shuffle emulation of the same
tiles elsewhere, which only tests choose), key and value tiles of 64 rows streamed through a ring
of :func:`mma_stages` shared-memory slots by asynchronous copies. :func:`choose_variant` is the
heuristic; ``attention_forward(..., variant=...)`` forces one. Plans (the prepared launches of a
call signature) live in :data:`rocarray._core.plans.cache`.

The third forward variant, ``"wgmma"`` (FlashAttention-3's forward, Shah et al. 2024; compute
capability 9.0 only), takes float16/bfloat16 without an explicit mask, head dimensions multiples
of 8 up to 128 and 16-byte aligned tensors: 128 queries per block as two warpgroups of 64, both
products on sm_90a's warpgroup matrix instructions (wgmma; P from registers), Q, K and V copied
by TMA (tensor maps of the tensors themselves, :mod:`rocarray._core.tensor_maps`) into a ring of
:func:`wgmma_stages` slots of 128 keys; with :data:`WGMMA_OVERLAP` a tile's softmax overlaps the
previous tile's P V product, and with :data:`WGMMA_PINGPONG` the two warpgroups also take turns
issuing their products (:func:`wgmma_schedule`); with :data:`WGMMA_PERSISTENT` one block per
multiprocessor takes the units of 128 queries in turn (without a causal mask). A call it cannot
take (a tensor map the driver refuses, an unaligned tensor, no keys) runs ``"mma"`` instead.
:data:`WGMMA` = False takes it out of the heuristic's choices.
"""

import math

import numpy

from rocarray._core import compile as _compile
from rocarray._core import backend, dtypes, kernels, launch, plans, tensor_maps
from rocarray._core.workspace import workspaces

SOURCE = "miopen/attention.hip"
#: Threads per block of the flash kernels (``RA_ATTN_THREADS``).
THREADS = 128
#: Threads per block of the ``D = rowsum(dO * O)`` pre-pass (a warp per row).
DOT_BLOCK = 256
#: Classes of the larger head dimension; the largest is the most a call may have.
HEAD_DIMS = (64, 128, 256)
MAX_HEAD_DIM = HEAD_DIMS[-1]
#: Shared-memory bytes of a block's two streamed tiles.
TILE_BYTES = 32768
#: Kernel element type and log-sum-exp type of each data type.
_TYPES = {"float16": ("ra_half", "float"), "bfloat16": ("ra_bfloat16", "float"), "float32": ("float", "float"),
          "float64": ("double", "double")}
_MAX_GRID = 1 << 20
_MAX_INT32 = 2**31 - 1

#: The byte layout of the kernels' ``ra_attn_geom`` argument.
GEOM = numpy.dtype([("kind", "<i4"), ("causal", "<i4"), ("msz", "<i8"), ("msh", "<i8"), ("msl", "<i8"),
                    ("mss", "<i8"), ("L", "<i8"), ("S", "<i8")])
#: Mask kinds of ``ra_attn_geom``.
NO_MASK, BOOL_MASK, ADD_MASK = 0, 1, 2


def head_class(e, ev):
    """The head-dimension class ``D`` (:data:`HEAD_DIMS`) of head dimensions ``e`` and ``ev``.

    Raises
    ------
    ValueError
        Past :data:`MAX_HEAD_DIM`.
    """
    d = max(int(e), int(ev))
    for size in HEAD_DIMS:
        if d <= size:
            return size
    raise ValueError(f"head dimensions up to {MAX_HEAD_DIM} are supported, got {d}")


def acc_itemsize(dtype_name):
    """Bytes of the accumulation type (8 for float64 data, else 4)."""
    return 8 if dtype_name == "float64" else 4


def tile_rows(d, dtype_name):
    """Rows of a streamed shared-memory tile: two tiles of ``d`` accumulation values per row fill
    :data:`TILE_BYTES`, at most 32 (16 for float64: the registers of a row's scores)."""
    size = acc_itemsize(dtype_name)
    return min(32 if size == 4 else 16, TILE_BYTES // (2 * d * size))


def block_rows(d):
    """Rows a block owns (``D / 16`` lanes each)."""
    return THREADS // (d // 16)


def lse_dtype(dtype):
    """The log-sum-exp (and ``D``) dtype of ``dtype`` data: float64 for float64, else float32."""
    return numpy.dtype(numpy.float64 if numpy.dtype(dtype) == numpy.float64 else numpy.float32)


def kernel_name(kind, dtype_name, d=None, sched=None):
    """Name expression of ``kind`` (``'fwd'``, ``'fwd_mma'``, ``'fwd_wgmma'``, ``'bwd_dq'``,
    ``'bwd_dkdv'``, ``'bwd_dot'``); ``sched``: the ``wgmma`` kernel's schedule (None:
    :func:`wgmma_schedule`)."""
    t, lt = _TYPES[dtype_name]
    if kind == "bwd_dot":
        return f"ra_miopen_attention_bwd_dot<{t}, {lt}>"
    if kind == "fwd_mma":
        return f"ra_miopen_attention_fwd_mma<{t}, {d}, {MMA_GROUP_TILES}>"
    if kind == "fwd_wgmma":
        sched = wgmma_schedule() if sched is None else int(sched)
        return f"ra_miopen_attention_fwd_wgmma<{t}, {d}, {sched}>"
    return f"ra_miopen_attention_{kind}<{t}, {lt}, {d}, {tile_rows(d, dtype_name)}>"


#: Forward variants: ``"portable"`` (every dtype, head dimensions up to 256, scalar FMAs),
#: ``"mma"`` (float16/bfloat16, head dimensions up to :data:`MMA_MAX_HEAD_DIM`, 16 x 8 x 16
#: matrix tiles: mma.sync on NVIDIA sm_80+, a portable emulation of the tiles elsewhere) and
#: ``"wgmma"`` (:func:`wgmma_applies`, compute capability 9.0 only).
VARIANTS = ("portable", "mma", "wgmma")
MMA_DTYPES = ("float16", "bfloat16")
MMA_MAX_HEAD_DIM = 128
#: Queries per block of the ``mma`` variant (``RA_ATTN_MMA_BM``) and keys per streamed tile
#: (``RA_ATTN_MMA_BN``).
MMA_ROWS = 128
MMA_KEYS = 64
#: Tiles of 16 queries each 32-lane group of the ``mma`` variant owns (its template argument MI).
MMA_GROUP_TILES = 2
#: Threads per block of the ``mma`` variant (``RA_ATTN_MMA_THREADS(MI)``).
MMA_THREADS = MMA_ROWS // (16 * MMA_GROUP_TILES) * 32
#: Depths of the ``mma`` variant's K/V shared-memory ring, deepest first.
MMA_STAGES = (4, 3, 2)


#: The way back: False keeps the ``wgmma`` variant out of :func:`choose_variant`'s choices (a
#: call may still force it).
WGMMA = True
#: The ``wgmma`` kernel's schedule: True overlaps a tile's softmax with the previous tile's
#: O += P V (FlashAttention-3's intra-warpgroup pipelining); False runs them one after the other
#: (the way back if the overlapped schedule misbehaves).
WGMMA_OVERLAP = True
#: With :data:`WGMMA_OVERLAP`: the two consumer warpgroups take turns issuing their products
#: (FlashAttention-3's ping-pong, named barriers), so one's softmax runs under the other's
#: products. Off: it measured no faster than the overlapped schedule alone (docs/performance/miopen.md).
WGMMA_PINGPONG = False
#: The ``wgmma`` kernel's grid without a causal mask: True launches one block per multiprocessor,
#: each taking units of 128 queries in turn, so a block's producer copies the next unit's Q and
#: first K/V tiles while the last unit's products and stores finish; False launches one block per
#: unit (the way back). Causal calls always take one block per unit: their units differ in
#: length, and the hardware's scheduling of blocks balances them where a fixed turn does not.
WGMMA_PERSISTENT = True
#: Head-dimension classes of the ``wgmma`` variant.
WGMMA_HEAD_DIMS = (64, 128)
#: Queries per block of the ``wgmma`` variant (two warpgroups of 64) and keys per ring slot
#: (``RA_ATTN_WG_BM``, ``RA_ATTN_WG_BN``).
WGMMA_ROWS = 128
WGMMA_KEYS = 128
#: The ``wgmma`` kernel's schedules (its template argument SCHED): one step after the other,
#: overlapped, overlapped with the ping-pong.
WGMMA_SCHEDULES = (0, 1, 2)
#: Threads per block of the ``wgmma`` variant by schedule: two consumer warpgroups and a producer
#: warp (0), or a producer warpgroup that hands its registers to the consumers (``setmaxnreg``).
WGMMA_THREADS = {0: 2 * 128 + 32, 1: 3 * 128, 2: 3 * 128}

#: Depths of the ``wgmma`` variant's K/V ring, deepest first.
WGMMA_STAGES = (4, 3, 2)
#: Alignment (bytes) of the swizzled tiles; the kernel aligns its dynamic shared memory up.
WGMMA_ALIGN = 1024


def wgmma_schedule():
    """The ``wgmma`` schedule :data:`WGMMA_OVERLAP` and :data:`WGMMA_PINGPONG` select."""
    return 0 if not WGMMA_OVERLAP else 2 if WGMMA_PINGPONG else 1


def wgmma_applies(dtype_name, e, ev):
    """Whether the ``wgmma`` variant takes these data on a device where it runs: float16 or
    bfloat16, head dimensions up to 128 and multiples of 8 (16-byte rows for TMA)."""
    e, ev = int(e), int(ev)
    return dtype_name in MMA_DTYPES and max(e, ev) <= WGMMA_HEAD_DIMS[-1] and e % 8 == 0 and ev % 8 == 0


def wgmma_device(info):
    """Whether the ``wgmma`` variant runs on a device (:class:`rocarray._core.backend.DeviceInfo`):
    NVIDIA compute capability 9.0 exactly (sm_90a's instructions exist only there)."""
    return (not info.is_hip and info.arch == "sm_90"
            and tuple(backend.compute_capability_version(info)) == (9, 0))


def wgmma_shared_bytes(d, stages):
    """Dynamic shared memory of a ``wgmma`` block for head-dimension class ``d``: ``2 + 2 stages``
    8-byte mbarriers, then (from the next 1024-byte boundary) the Q tile (``d / 64`` blocks of 128
    rows x 128 bytes) and ``stages`` slots of a K tile (``d / 64`` x 128 rows x 128 bytes) and a V
    tile (``2 d / 64`` boxes of 64 x 128 bytes)."""
    blocks = int(d) // 64
    slot = blocks * WGMMA_KEYS * 128 + (WGMMA_KEYS // 64) * blocks * 8192
    return 8 * (2 + 2 * int(stages)) + WGMMA_ALIGN + blocks * WGMMA_ROWS * 128 + int(stages) * slot


def wgmma_stages(d, shared_limit):
    """The deepest of :data:`WGMMA_STAGES` of which a ``wgmma`` block fits ``shared_limit`` bytes,
    or None."""
    for stages in WGMMA_STAGES:
        if wgmma_shared_bytes(d, stages) <= shared_limit:
            return stages
    return None


def wgmma_map_geometry(z, h, hkv, L, S, e, ev):
    """``{'q' | 'k' | 'v': (dims, strides in bytes, box)}`` of the ``wgmma`` variant's tensor maps:
    q as the 3-D tensor (E, L, Z H) in boxes of 64 x 128 rows, k as (E, S, Z HKV) in boxes of
    64 x 128 keys, v as (EV, S, Z HKV) in boxes of 64 x 64 keys."""
    return {"q": ((e, L, z * h), (2 * e, 2 * e * L), (64, WGMMA_ROWS, 1)),
            "k": ((e, S, z * hkv), (2 * e, 2 * e * S), (64, WGMMA_KEYS, 1)),
            "v": ((ev, S, z * hkv), (2 * ev, 2 * ev * S), (64, 64, 1))}


def mma_shared_bytes(d, stages):
    """Dynamic shared memory of an ``mma`` block: the Q tile and ``stages`` K and V tiles, rows
    of ``d + 8`` 16-bit elements."""
    return (MMA_ROWS + 2 * MMA_KEYS * int(stages)) * (int(d) + 8) * 2


def mma_stages(d, shared_limit):
    """The ``mma`` ring depth for head-dimension class ``d``: the deepest of :data:`MMA_STAGES`
    of which two blocks fit ``shared_limit`` bytes (two blocks are what the kernel's registers
    allow on a multiprocessor), else the deepest of which one block does, else the shallowest."""
    for blocks in (2, 1):
        for stages in MMA_STAGES:
            if blocks * mma_shared_bytes(d, stages) <= shared_limit:
                return stages
    return MMA_STAGES[-1]


def instantiations():
    """Every name expression this module launches."""
    names = [kernel_name("bwd_dot", t) for t in _TYPES]
    names += [kernel_name(k, t, d) for k in ("fwd", "bwd_dq", "bwd_dkdv") for t in _TYPES for d in HEAD_DIMS]
    names += [kernel_name("fwd_mma", t, d) for t in MMA_DTYPES for d in HEAD_DIMS if d <= MMA_MAX_HEAD_DIM]
    names += [kernel_name("fwd_wgmma", t, d, sched) for t in MMA_DTYPES for d in WGMMA_HEAD_DIMS
              for sched in WGMMA_SCHEDULES]
    return sorted(names)


def mma_applies(dtype_name, e, ev):
    """Whether the ``mma`` variant takes this problem (16-bit data, head dimensions up to 128)."""
    return dtype_name in MMA_DTYPES and max(int(e), int(ev)) <= MMA_MAX_HEAD_DIM


def choose_variant(dtype_name, e, ev, info, shared_limit=None, masked=False):
    """The heuristic: ``'wgmma'`` where :data:`WGMMA` is set, there is no explicit mask
    (``masked``), :func:`wgmma_applies` and :func:`wgmma_device` hold and, when ``shared_limit``
    (bytes of dynamic shared memory a block may take) is given, a block with the shallowest ring
    fits it; else ``'mma'`` where it applies, the device has the matrix units it is written for
    (NVIDIA compute capability 8.0 or newer) and a block with the shallowest ring fits
    ``shared_limit``; else ``'portable'``."""
    if WGMMA and not masked and wgmma_applies(dtype_name, e, ev) and wgmma_device(info) and (
            shared_limit is None or wgmma_stages(head_class(e, ev), shared_limit) is not None):
        return "wgmma"
    if mma_applies(dtype_name, e, ev) and not info.is_hip and info.arch.startswith("sm_") \
            and int(info.arch[3:]) >= 80 and (shared_limit is None or mma_shared_bytes(
                head_class(e, ev), MMA_STAGES[-1]) <= shared_limit):
        return "mma"
    return "portable"


def _shared_limit(device_id):
    """Bytes of dynamic shared memory a block may take on ``device_id``."""
    return backend.shared_memory_limit(device_id)


_compile.register(SOURCE, instantiations())
_kernels = kernels.Family(SOURCE, THREADS, 4)


def _name(dtype):
    return "bfloat16" if dtypes.ctype(dtype) == dtypes.BFLOAT16 else numpy.dtype(dtype).name


def _mask_meta(mask):
    """``(kind, element strides z, h, l, s)`` of a 4-D mask (stride 0 on its size-1 axes)."""
    if mask is None:
        return NO_MASK, (0, 0, 0, 0)
    kind = BOOL_MASK if mask.dtype == numpy.bool_ else ADD_MASK
    return kind, tuple(0 if n == 1 else st // mask.itemsize for n, st in zip(mask.shape, mask.strides))


def _geom(kind, strides, causal, L, S):
    g = numpy.zeros(1, GEOM)
    g["kind"], g["causal"] = kind, int(bool(causal))
    g["msz"], g["msh"], g["msl"], g["mss"] = strides
    g["L"], g["S"] = L, S
    return g


def _ptr(x):
    return 0 if x is None else x.data.ptr


class _Plan:
    """The prepared launches of one call signature (None where a launch has no work)."""

    __slots__ = ("fwd", "dot", "dq", "dkdv")


def _forward_plan(name, z, h, hkv, L, S, e, ev, kind, strides, causal, scale, device_id, variant, vec, stages):
    plan = _Plan()
    d = head_class(e, ev)
    p = launch.POINTER
    geom = _geom(kind, strides, causal, L, S)
    fixed = (geom, numpy.int64(h), numpy.int64(hkv), numpy.int32(e), numpy.int32(ev), numpy.float64(scale))
    if variant == "mma":
        blocks = z * h * -(-L // MMA_ROWS)
        kernel = _kernels[kernel_name("fwd_mma", name, d)]
        plan.fwd = kernel.prepare(device_id, (blocks,), (p,) * 6 + fixed + (numpy.int32(vec), numpy.int32(stages)),
                                  block=MMA_THREADS, shared=mma_shared_bytes(d, stages)) if blocks else None
    else:
        blocks = z * h * -(-L // block_rows(d))
        kernel = _kernels[kernel_name("fwd", name, d)]
        plan.fwd = kernel.prepare(device_id, (blocks,), (p,) * 6 + fixed) if blocks else None
    return plan


def _wgmma_map(kind, address, geometry):
    dims, strides, box = geometry
    key = ("miopen.attention_wgmma", kind, int(address), dims, strides, box)
    return tensor_maps.tiled(key, address, 2, dims, strides, box)


class _WgmmaPlan:
    """The prepared ``wgmma`` launch of one call signature: ``plan(q, k, v, out, lse)`` takes
    device addresses and returns False (nothing launched) when an input is not 16-byte aligned or
    the driver refuses a tensor map."""

    __slots__ = ("launch", "geometry")

    def __init__(self, name, z, h, hkv, L, S, e, ev, kind, strides, causal, scale, device_id, stages, sched):
        d = head_class(e, ev)
        units = z * h * -(-L // WGMMA_ROWS)
        persistent = WGMMA_PERSISTENT and not causal
        blocks = min(units, backend.device_info(device_id).multiprocessors) if persistent else units
        ARRAY, POINTER = launch.HOST_ARRAY, launch.POINTER
        fixed = (_geom(kind, strides, causal, L, S), numpy.int64(h), numpy.int64(hkv), numpy.int32(ev),
                 numpy.float64(scale), numpy.int32(stages), numpy.int64(units))
        self.launch = _kernels[kernel_name("fwd_wgmma", name, d, sched)].prepare(
            device_id, (blocks,), (ARRAY, ARRAY, ARRAY, POINTER, POINTER) + fixed,
            block=WGMMA_THREADS[sched], shared=wgmma_shared_bytes(d, stages)) if blocks else None
        self.geometry = wgmma_map_geometry(z, h, hkv, L, S, e, ev)

    def __call__(self, q, k, v, out, lse):
        if self.launch is None:
            return True
        dims = [n for t in "qkv" for n in self.geometry[t][0]]
        if q % 16 or k % 16 or v % 16 or min(dims) < 1 or max(dims) > _MAX_INT32:
            return False  # (no keys: a tensor map has no empty dimension; TMA coordinates are 32-bit)
        try:
            maps = [_wgmma_map(kind, address, self.geometry[kind])
                    for kind, address in (("q", q), ("k", k), ("v", v))]
        except tensor_maps.TensorMapError:
            return False
        self.launch(*maps, out, lse)
        return True


def _backward_plan(name, z, h, hkv, L, S, e, ev, kind, strides, causal, scale, device_id):
    plan = _Plan()
    d = head_class(e, ev)
    p = launch.POINTER
    geom = _geom(kind, strides, causal, L, S)
    fixed = (geom, numpy.int64(h), numpy.int64(hkv), numpy.int32(e), numpy.int32(ev), numpy.float64(scale))
    rows = z * h * L
    warps = DOT_BLOCK // backend.device_info(device_id).warp_size
    plan.dot = (_kernels[kernel_name("bwd_dot", name)].prepare(
        device_id, (min(-(-rows // warps), _MAX_GRID),), (p, p, p, numpy.int64(rows), numpy.int32(ev)),
        block=DOT_BLOCK) if rows else None)
    q_blocks = z * h * -(-L // block_rows(d))
    plan.dq = (_kernels[kernel_name("bwd_dq", name, d)].prepare(device_id, (q_blocks,), (p,) * 8 + fixed)
               if q_blocks else None)
    k_blocks = z * hkv * -(-S // block_rows(d))
    plan.dkdv = (_kernels[kernel_name("bwd_dkdv", name, d)].prepare(device_id, (k_blocks,), (p,) * 9 + fixed)
                 if k_blocks else None)
    return plan


def _signature(q, k, v, mask, causal, scale):
    z, h, L, e = q.shape
    hkv, S = k.shape[1], k.shape[2]
    ev = v.shape[3]
    kind, strides = _mask_meta(mask)
    scale = 1.0 / math.sqrt(e) if scale is None else float(scale)
    return (_name(q.dtype), z, h, hkv, L, S, e, ev, kind, strides, bool(causal), scale, q.data.device_id)


def attention_forward(q, k, v, *, mask=None, causal=False, scale=None, variant=None):
    """Flash attention forward: ``softmax(scale q k^T + mask) v`` per (batch, head), and the
    log-sum-exp of every query's scores.

    Parameters
    ----------
    q : cupy.ndarray
        Queries (Z, H, L, E), C-contiguous, float16, bfloat16, float32 or float64.
    k : cupy.ndarray
        Keys (Z, HKV, S, E) of q's dtype, C-contiguous; HKV divides H, and query head h reads
        key/value head ``h // (H // HKV)`` (grouped-query attention; HKV == H: multi-head).
    v : cupy.ndarray
        Values (Z, HKV, S, EV) of q's dtype, C-contiguous. ``max(E, EV) <= 256``.
    mask : cupy.ndarray, optional
        4-D, each axis of size 1 (broadcast) or of (Z, H, L, S)'s size, any strides: bool (a
        score takes part where True) or q's dtype (added to the scaled scores).
    causal : bool
        Key j takes part in query i's softmax only when ``j <= i`` (torch's top-left alignment).
    scale : float, optional
        Score scale; default ``1 / sqrt(E)``.
    variant : {None, 'portable', 'mma', 'wgmma'}
        The kernel (:data:`VARIANTS`); None: :func:`choose_variant`'s choice. ``'mma'`` takes
        float16/bfloat16 with head dimensions up to 128, ``'wgmma'`` what :func:`wgmma_applies`
        takes without a mask, on compute capability 9.0 (``ValueError`` otherwise); a call
        ``'wgmma'`` cannot launch (unaligned tensors, a tensor map refused) runs ``'mma'``.

    Returns
    -------
    out : cupy.ndarray
        (Z, H, L, EV) in q's dtype. A query none of whose keys take part gets zeros.
    lse : cupy.ndarray
        (Z, H, L): ``log sum_j exp(s_ij)`` over the scores taking part (-inf where none do),
        float32 (float64 for float64 data).

    Notes
    -----
    Scores, the softmax and the output accumulate in float32 (float64 for float64 data); the
    ``mma`` variant rounds the probabilities to the data's type for the product with v, as
    FlashAttention does.
    """
    sig = _signature(q, k, v, mask, causal, scale)
    name, z, h, L, e, ev = sig[0], sig[1], sig[2], sig[4], sig[6], sig[7]
    if variant is None:
        variant = choose_variant(name, e, ev, backend.device_info(sig[-1]), _shared_limit(sig[-1]),
                                 masked=mask is not None)
    elif variant not in VARIANTS or (variant == "mma" and not mma_applies(name, e, ev)) or (
            variant == "wgmma" and not (mask is None and wgmma_applies(name, e, ev)
                                        and wgmma_device(backend.device_info(sig[-1]))
                                        and wgmma_stages(head_class(e, ev), _shared_limit(sig[-1])))):
        raise ValueError(f"attention_forward: variant {variant!r} does not apply to {name} with head dimensions "
                         f"{e}, {ev} (variants: {', '.join(VARIANTS)}; 'mma': {', '.join(MMA_DTYPES)} up to "
                         f"{MMA_MAX_HEAD_DIM}; 'wgmma': the same, multiples of 8, no mask, compute "
                         f"capability 9.0)")
    # 16-byte rows: every head dimension a multiple of 8 elements, every base 16-byte aligned
    vec = e % 8 == 0 and ev % 8 == 0 and all(x.data.ptr % 16 == 0 for x in (q, k, v))
    cupy = backend.cupy()
    out = cupy.empty((z, h, L, ev), q.dtype)
    lse = cupy.empty((z, h, L), lse_dtype(q.dtype))
    if variant == "wgmma":
        stages = wgmma_stages(head_class(e, ev), _shared_limit(sig[-1]))
        sched = wgmma_schedule()
        plan = plans.cache.lookup(("miopen.attention_forward",) + sig + (variant, stages, sched, WGMMA_PERSISTENT),
                                  lambda: _WgmmaPlan(*sig, stages, sched))
        with launch.on_device(sig[-1]):
            if plan(q.data.ptr, k.data.ptr, v.data.ptr, out.data.ptr, lse.data.ptr):
                return out, lse
        variant = "mma"
    stages = mma_stages(head_class(e, ev), _shared_limit(sig[-1])) if variant == "mma" else 0
    key = ("miopen.attention_forward",) + sig + (variant, vec, stages)
    plan = plans.cache.lookup(key, lambda: _forward_plan(*sig, variant, vec, stages))
    if plan.fwd is not None:
        with launch.on_device(sig[-1]):
            plan.fwd(q.data.ptr, k.data.ptr, v.data.ptr, out.data.ptr, lse.data.ptr, _ptr(mask))
    return out, lse


def attention_backward(dout, q, k, v, out, lse, *, mask=None, causal=False, scale=None):
    """Flash attention backward: the gradients of :func:`attention_forward`'s output with
    respect to q, k and v.

    Parameters
    ----------
    dout : cupy.ndarray
        Gradient of the output (Z, H, L, EV), q's dtype, C-contiguous.
    q, k, v : cupy.ndarray
        As given to :func:`attention_forward`.
    out : cupy.ndarray
        The forward's output (Z, H, L, EV).
    lse : cupy.ndarray
        The forward's log-sum-exp (Z, H, L), C-contiguous; float32 or float64 (cast to
        :func:`lse_dtype` of q's dtype when it differs).
    mask : cupy.ndarray, optional
        As given to :func:`attention_forward`.
    causal : bool
        As given to :func:`attention_forward`.
    scale : float, optional
        As given to :func:`attention_forward`.

    Returns
    -------
    dq, dk, dv : cupy.ndarray
        In q's dtype, of q's, k's and v's shapes. dk and dv sum over the query heads sharing a
        key/value head.
    """
    sig = _signature(q, k, v, mask, causal, scale)
    z, h, hkv, L, S, e, ev = sig[1:8]
    cupy = backend.cupy()
    lt = lse_dtype(q.dtype)
    if lse.dtype != lt:
        lse = lse.astype(lt)
    dq = cupy.empty((z, h, L, e), q.dtype)
    dk = cupy.empty((z, hkv, S, e), q.dtype)
    dv = cupy.empty((z, hkv, S, ev), q.dtype)
    plan = plans.cache.lookup(("miopen.attention_backward",) + sig, lambda: _backward_plan(*sig))
    m = _ptr(mask)
    with launch.on_device(sig[-1]):
        dvec = workspaces.scratch("miopen.attention.rowsum", max(z * h * L, 1) * lt.itemsize, sig[-1])
        if plan.dot is not None:
            plan.dot(dout.data.ptr, out.data.ptr, dvec.data.ptr)
        if plan.dq is not None:
            plan.dq(q.data.ptr, k.data.ptr, v.data.ptr, dout.data.ptr, lse.data.ptr, dvec.data.ptr, dq.data.ptr, m)
        if plan.dkdv is not None:
            plan.dkdv(q.data.ptr, k.data.ptr, v.data.ptr, dout.data.ptr, lse.data.ptr, dvec.data.ptr, dk.data.ptr,
                      dv.data.ptr, m)
    return dq, dk, dv
