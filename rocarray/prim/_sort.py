"""Radix sort on hand-written HIP kernels (``_kernels/prim/radix_sort.hip``), hipCUB-style.

Public functions
----------------
``radix_sort_keys(keys, *, descending=False, begin_bit=0, end_bit=None, out=None)``
    Sorted copy of 1-D ``keys``.
``radix_sort_pairs(keys, values, *, descending=False, begin_bit=0, end_bit=None)``
    ``(sorted_keys, values permuted alike)``; stable.
``radix_argsort(keys, *, descending=False)``
    int64 indices of the stable sort (``numpy.argsort(kind='stable')``).
``segmented_radix_sort_keys(keys, offsets, ...)`` / ``segmented_radix_sort_pairs(keys, offsets, values, ...)``
    Every segment ``keys[offsets[s]:offsets[s + 1]]`` sorted on its own.
``sort_rows(x, *, indices=False)``
    Every row of a C-contiguous 2-D array sorted (or its stable argsort), for the façade.

Keys: every integer dtype, bool, float16/32/64. Order: NumPy's -- integers by value, floats with
-0.0 == 0.0 and every NaN last (whatever its sign or payload), ties in input order (stable). Keys
come back bit for bit (a -0.0 stays -0.0). ``descending=True`` reverses the order of distinct keys
(NaNs first) and still keeps ties in input order. ``begin_bit``/``end_bit`` restrict the sort to
those bits of the order-preserving unsigned image of the key (hipCUB's meaning).

Design
------
* LSD radix sort, 8 bits per pass, after Onesweep (Adinets & Merrill 2022): one upsweep launch
  reads the keys once and builds the histograms of every digit place; a one-block kernel turns
  them into digit starts and a slot table: slot word s (the kernel's "plan word") names the place
  that launch s sorts (the places whose digit differs between keys, in order). The table stays on
  the device: the host queues one pass launch per digit place, and a launch past the active slots
  exits at once, so 8/16-bit keys and narrow-range data take fewer passes and nothing waits for
  the device (:func:`plan_passes` and :func:`slot_table` are its host model).
  Each pass is one launch that ranks tiles of 4096 keys (8192 for keys-only 8/16-bit keys) in
  shared memory (warp multisplit by ballots or peer words) and finds its global offsets by
  decoupled look-back on per-tile digit counts, then writes keys (and values) once.
* Kernels exist per unsigned key width (8/16/32/64 bits) x value width (none, 4, 8 bytes); the
  signed/float/descending image is applied when the first pass loads the keys and undone when the
  last pass stores them (a runtime ``mode``), so no transform pass and few instantiations.
* float keys: the image maps -0.0 to +0.0 and every NaN to one pattern; if the upsweep sees a key
  that the inverse would not restore bit for bit (-0.0, a non-canonical NaN), the keys are
  argsorted and gathered instead. A sort that returns float keys therefore reads that one flag
  back (into pinned memory, behind the queued passes) and waits for it after queuing them. Its
  passes take the PLAIN image (the sign trick alone, 2 operations per key instead of about 7):
  it orders keys exactly as the full image whenever no key is lossy, and when one is, those
  passes' keys are dropped anyway.
* argsort carries 32-bit indices through the passes (below 2**32 keys) and widens them to int64 in
  the last pass; its last pass does not store keys.
* Workspace: two of ``256 + tiles * 256`` status words (4 bytes below 2**30 keys, else 8) that
  the passes alternate between; the host zeroes the first once, every pass zeroes the other.
* Segmented sorts and row sorts: a stable sort by key, then a stable sort by segment (row) id whose
  passes are limited to the id's bits (two sorts and gathers).
* Plans: the launches of a sort signature (key dtype, length, bits, direction, values) are
  prepared once and kept in :data:`rocarray._core.plans.cache` (``('prim.sort', ...)``, and
  ``('prim.sort.upsweep', ...)`` for the upsweep, the starts and the lossy check); a call
  allocates its buffers and passes their addresses (the slot table above is data, written per
  call by ``ra_prim_radix_starts``).
"""

import numpy

from rocarray._core import args as _args
from rocarray._core import backend, dtypes, kernels, launch, plans
from rocarray._core import compile as _compile

SOURCE = "prim/radix_sort.hip"

#: Threads per block (``RA_PRIM_SORT_BLOCK``) and keys per tile (``ra_prim_sort_tile`` in the source:
#: 16 keys per thread, 32 for keys-only sorts of 8/16-bit keys).
BLOCK = 256
TILE = 256 * 16
TILE_NARROW = 256 * 32
RADIX = 256
#: Byte offset of the status words in a pass workspace (``RA_PRIM_SORT_STATUS_OFFSET``).
STATUS_OFFSET = 256
#: Elements per thread of the upsweep's first wave (grid sizing only).
UP_ITEMS = 16
#: Status words are 64-bit from this many keys on (30-bit prefixes in 32-bit words below).
WIDE_STATUS_N = 1 << 30

MODE_SIGNED, MODE_FLOAT, MODE_DESC, MODE_PLAIN = 1, 2, 4, 8
#: A launch slot's plan word: the digit place in bits 0-7, then these flags (``RA_PRIM_SORT_SLOT_*``).
SLOT_ACTIVE, SLOT_LAST = 256, 512
#: Host flags of a pass launch (``RA_PRIM_SORT_*`` in the source; the kernel adds TOUT itself).
F_TIN, F_KEYS, F_VIOTA, F_VWIDE = 1, 4, 8, 16

#: Unsigned dtype of each key (or value) size: the view the kernels sort and move.
UNSIGNED = {1: numpy.dtype(numpy.uint8), 2: numpy.dtype(numpy.uint16), 4: numpy.dtype(numpy.uint32),
            8: numpy.dtype(numpy.uint64)}
VALUE_BYTES = (0, 4, 8)

#: Key dtypes the kernels sort.
KEY_DTYPES = tuple(numpy.dtype(d) for d in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                             "uint32", "uint64", "float16", "float32", "float64"))
_I64 = numpy.dtype(numpy.int64)


# --------------------------------------------------------------------------------------------
# pure-Python rules (kernel names, key images, pass planning)
# --------------------------------------------------------------------------------------------

def upsweep_name(key_bytes, plain=False):
    """The upsweep for keys of ``key_bytes``; ``plain``: float keys counted by the PLAIN image."""
    return f"ra_prim_radix_upsweep<{dtypes.UNSIGNED[key_bytes]}, {'true' if plain else 'false'}>"


def lossy_name(key_bytes):
    """The lossy-key check that follows a PLAIN upsweep of float keys of ``key_bytes``."""
    return f"ra_prim_radix_lossy<{dtypes.UNSIGNED[key_bytes]}>"


def onesweep_name(key_bytes, value_bytes):
    """The digit pass for keys of ``key_bytes`` carrying values of ``value_bytes`` (0: none)."""
    return f"ra_prim_radix_onesweep<{dtypes.UNSIGNED[key_bytes]}, {int(value_bytes)}>"


SEGMENT_IDS_NAME = "ra_prim_radix_segment_ids<ra_u32>"


def instantiations():
    """Every name expression this module launches."""
    sizes = tuple(UNSIGNED)
    names = [upsweep_name(b) for b in sizes] + [upsweep_name(b, True) for b in sizes if b > 1]
    names += [lossy_name(b) for b in sizes if b > 1]
    names += [onesweep_name(b, v) for b in sizes for v in VALUE_BYTES]
    names.append(SEGMENT_IDS_NAME)
    return sorted(names)


_compile.register(SOURCE, instantiations())


def check_key_dtype(dtype):
    """``dtype`` as a numpy dtype, or ``TypeError`` when the radix sort has no kernel for it."""
    dtype = numpy.dtype(dtype)
    if dtype not in KEY_DTYPES:
        raise TypeError(f"prim radix sort: unsupported key dtype {dtype.name} "
                        f"(integers, bool, float16/32/64)")
    return dtype


def key_mode(dtype, descending=False):
    """The kernel's ``mode`` bits for keys of ``dtype``."""
    dtype = check_key_dtype(dtype)
    mode = MODE_FLOAT if dtype.kind == "f" else MODE_SIGNED if dtype.kind == "i" else 0
    return mode | (MODE_DESC if descending else 0)


def key_image(x, descending=False):
    """The kernel's order-preserving unsigned image of host keys ``x`` (NumPy model of
    ``ra_prim_sort_key::forward``; for tests and documentation)."""
    x = numpy.asarray(x)
    dtype = check_key_dtype(x.dtype)
    u = UNSIGNED[dtype.itemsize]
    bits = x.view(u).copy() if dtype.kind != "b" else x.view(numpy.uint8).copy()
    top = u.type(1) << u.type(8 * u.itemsize - 1)
    ones = u.type(~u.type(0))
    if dtype.kind == "f":
        inf = numpy.array(numpy.inf, dtype).view(u)
        nan = (bits & ~top) > inf
        bits[bits == top] = 0
        neg = (bits & top) != 0
        bits = numpy.where(neg, ~bits, bits | top).astype(u)
        bits[nan] = ones
    elif dtype.kind == "i":
        bits ^= top
    if descending:
        bits = ~bits
    return bits.astype(u)


def key_from_image(k, dtype, descending=False):
    """Inverse of :func:`key_image` (NaNs come back as the canonical quiet NaN)."""
    dtype = check_key_dtype(dtype)
    u = UNSIGNED[dtype.itemsize]
    k = numpy.asarray(k, dtype=u).copy()
    top = u.type(1) << u.type(8 * u.itemsize - 1)
    if descending:
        k = ~k
    if dtype.kind == "f":
        ones = u.type(~u.type(0))
        qnan = numpy.array(numpy.nan, dtype).view(u)
        out = numpy.where((k & top) != 0, k ^ top, ~k).astype(u)
        out[k == ones] = qnan
        k = out
    elif dtype.kind == "i":
        k ^= top
    return k.view(dtype) if dtype.kind != "b" else k.astype(bool)


def image_is_lossy(x):
    """Host model of ``ra_prim_sort_key::lossy``: keys the inverse image would not restore."""
    x = numpy.asarray(x)
    if x.dtype.kind != "f":
        return numpy.zeros(x.shape, bool)
    u = UNSIGNED[x.dtype.itemsize]
    bits = x.view(u)
    top = u.type(1) << u.type(8 * u.itemsize - 1)
    qnan = numpy.array(numpy.nan, x.dtype).view(u)
    inf = numpy.array(numpy.inf, x.dtype).view(u)
    return (bits == top) | (((bits & ~top) > inf) & (bits != qnan))


def check_bits(begin_bit, end_bit, key_bytes):
    """``(begin_bit, end_bit)`` validated for keys of ``key_bytes`` bytes (``end_bit=None``: all)."""
    total = 8 * key_bytes
    end_bit = total if end_bit is None else int(end_bit)
    begin_bit = int(begin_bit)
    if not 0 <= begin_bit <= end_bit <= total:
        raise ValueError(f"prim radix sort: need 0 <= begin_bit <= end_bit <= {total}, "
                         f"got begin_bit={begin_bit}, end_bit={end_bit}")
    return begin_bit, end_bit


def digit_places(begin_bit, end_bit):
    """``[(shift, nbits), ...]``: the digit places from the least significant one, 8 bits each
    (fewer in the top one)."""
    return [(s, min(8, end_bit - s)) for s in range(begin_bit, end_bit, 8)]


def plan_passes(hist, begin_bit, end_bit):
    """The passes to run: ``[(place, shift, nbits), ...]`` for the digit places whose histogram
    row (``hist[place]``, 256 counts) has more than one nonzero bin."""
    hist = numpy.asarray(hist)
    plan = []
    for p, (shift, nbits) in enumerate(digit_places(begin_bit, end_bit)):
        if numpy.count_nonzero(hist[p]) > 1:
            plan.append((p, shift, nbits))
    return plan


def value_plan(n, values_itemsize, iota):
    """``(kernel value bytes, widen in the last pass)`` for ``n`` keys: iota indices are 32-bit
    below 2**32 keys (widened to int64 when stored), values of 4 or 8 bytes go as they are, other
    value sizes (0 = none) are not carried by the kernels."""
    if iota:
        return (4, True) if n < (1 << 32) else (8, False)
    if values_itemsize in (4, 8):
        return values_itemsize, False
    return 0, False


def tile_size(key_bytes, value_bytes):
    """Keys per tile of ``ra_prim_radix_onesweep<U, VB>``."""
    return TILE_NARROW if key_bytes <= 2 and value_bytes == 0 else TILE


def meta_layout(places):
    """Word offsets (uint64) in the upsweep's ``meta`` array: ``places * 256`` histogram counts,
    as many digit starts, the "maybe lossy" flag, the lossy flag, then the slot table, one plan
    word per place (``size`` words in all)."""
    starts = places * RADIX
    lossy = 2 * places * RADIX + 1
    return {"hist": 0, "starts": starts, "maybe": lossy - 1, "lossy": lossy, "plan": lossy + 1,
            "size": lossy + 1 + places}


def lossy_bins(key_bytes, descending, begin_bit, end_bit):
    """The top-place bins (a sorted list) where the PLAIN image of a lossy float key can fall:
    ``-0.0`` gives 0x7f and NaNs the ends 0x00.. and ..0xff (four bins each for float16, whose top
    byte holds two mantissa bits); mirrored when descending. Every bin when the top place is not
    the image's top byte (``begin_bit``/``end_bit`` cut it)."""
    total = 8 * key_bytes
    places = digit_places(begin_bit, end_bit)
    if not places or end_bit != total or places[-1][0] != total - 8:
        return list(range(RADIX))
    r = 3 if key_bytes == 2 else 0
    bins = {0x7F} | set(range(r + 1)) | set(range(0xFF - r, 0x100))
    if descending:
        bins = {0xFF - b for b in bins}
    return sorted(bins)


def bin_mask_words(bins):
    """``bins`` as the four 64-bit words of a 256-bit mask (bin d: bit d % 64 of word d // 64)."""
    words = [0, 0, 0, 0]
    for b in bins:
        words[b // 64] |= 1 << (b % 64)
    return words


def slot_table(hist, begin_bit, end_bit):
    """Host model of the slot table ``ra_prim_radix_starts`` writes: one plan word per digit place,
    the places of :func:`plan_passes` first (the top place when it is empty), the last marked."""
    places = len(digit_places(begin_bit, end_bit))
    run = [p for p, _, _ in plan_passes(hist, begin_bit, end_bit)] or [places - 1]
    table = [p | SLOT_ACTIVE for p in run] + [0] * (places - len(run))
    table[len(run) - 1] |= SLOT_LAST
    return table


def decode_plan(table):
    """``[(place, last), ...]`` of the active slots of a slot table."""
    return [(int(w) & 0xFF, bool(int(w) & SLOT_LAST)) for w in table if int(w) & SLOT_ACTIVE]


def workspace_bytes(n, tile=TILE):
    """Bytes of one pass's workspace: ticket, then one status word per tile and digit."""
    tiles = -(-n // tile)
    return STATUS_OFFSET + tiles * RADIX * (8 if n >= WIDE_STATUS_N else 4)


# --------------------------------------------------------------------------------------------
# plans and launches
# --------------------------------------------------------------------------------------------

_kernels = kernels.Family(SOURCE, BLOCK, 8)


def _check_1d(x, name):
    _args.device_array(x, name, "prim radix sort")
    if x.ndim != 1:
        raise ValueError(f"prim radix sort: {name} must be 1-D, got shape {x.shape}")


class _Upsweep:
    """The upsweep, the starts kernel (digit starts and slot table) and, for the PLAIN image, the
    lossy check of one sort signature: called with the key bits and the zeroed ``meta`` array of
    :func:`meta_layout`."""

    __slots__ = ("upsweep", "starts", "lossy", "at")

    def __call__(self, kbits_ptr, meta_ptr):
        at = self.at
        self.upsweep(kbits_ptr, meta_ptr, meta_ptr + at["lossy"])
        self.starts(meta_ptr, meta_ptr + at["starts"], meta_ptr + at["plan"], meta_ptr + at["maybe"])
        if self.lossy is not None:
            # The PLAIN upsweep leaves lossy keys to this check (a launch that exits at once unless
            # the histograms show keys in the bins of lossy_bins).
            self.lossy(kbits_ptr, meta_ptr + at["maybe"], meta_ptr + at["lossy"])


def _upsweep_plan(key_bytes, n, mode, begin_bit, end_bit, device_id):
    places = len(digit_places(begin_bit, end_bit))
    lay = meta_layout(places)
    plain = bool(mode & MODE_PLAIN)
    ptr, i32 = launch.POINTER, numpy.int32
    run = _Upsweep()
    run.at = {k: 8 * lay[k] for k in ("starts", "plan", "maybe", "lossy")}
    kernel = _kernels[upsweep_name(key_bytes, plain)]
    grid = max(1, min(-(-n // (BLOCK * UP_ITEMS)), kernel.wave(device_id)))
    run.upsweep = kernel.prepare(device_id, grid, (ptr, numpy.int64(n), i32(mode), i32(begin_bit), i32(end_bit),
                                                   ptr, ptr))
    words = bin_mask_words(lossy_bins(key_bytes, bool(mode & MODE_DESC), begin_bit, end_bit)) if plain else (0,) * 4
    mask = tuple(numpy.uint64(w) for w in words)
    run.starts = _kernels["ra_prim_radix_starts"].prepare(device_id, 1, (ptr, ptr, ptr, i32(places), ptr) + mask,
                                                          block=RADIX)
    run.lossy = None
    if plain:
        check = _kernels[lossy_name(key_bytes)]
        grid = max(1, min(-(-n // (4 * BLOCK)), check.wave(device_id)))
        run.lossy = check.prepare(device_id, grid, (ptr, numpy.int64(n), ptr, ptr))
    return run


def _upsweep(kbits, mode, begin_bit, end_bit):
    """Queue the upsweep, the starts kernel and (PLAIN mode) the lossy check: the device array
    ``meta`` of :func:`meta_layout` (histograms, digit starts, flags, slot table), nothing read
    back."""
    n, kb, device_id = kbits.size, kbits.dtype.itemsize, kbits.data.device_id
    run = plans.cache.lookup(("prim.sort.upsweep", kb, n, mode, begin_bit, end_bit, device_id),
                             lambda: _upsweep_plan(kb, n, mode, begin_bit, end_bit, device_id))
    meta = backend.cupy().zeros(meta_layout(len(digit_places(begin_bit, end_bit)))["size"], dtype=numpy.uint64)
    run(kbits.data.ptr, meta.data.ptr)
    return meta


def _histograms(kbits, mode, begin_bit, end_bit):
    """Upsweep and slot table, read back: ``(hist (places, 256), lossy flag, digit starts on the
    device, slot table)`` (for tests; the table decoded by :func:`decode_plan`)."""
    places = len(digit_places(begin_bit, end_bit))
    lay = meta_layout(places)
    meta = _upsweep(kbits, mode, begin_bit, end_bit)
    host = backend.cupy().asnumpy(meta)
    hist = host[:places * RADIX].reshape(places, RADIX)
    table = decode_plan(host[lay["plan"]:lay["plan"] + places])
    return hist, bool(host[lay["lossy"]]), meta[lay["starts"]:lay["starts"] + places * RADIX], table


class _HostFlags:
    """The lossy flag of ``meta`` copied to pinned host memory behind the queued work;
    :meth:`lossy` waits for that copy only (the passes may still run)."""

    def __init__(self, meta, places):
        cupy = backend.cupy()
        at = meta_layout(places)["lossy"]
        word = meta[at:at + 1]
        self._mem = cupy.cuda.alloc_pinned_memory(word.nbytes)
        self._host = numpy.frombuffer(self._mem, numpy.uint64, 1)
        word.get(out=self._host, blocking=False)
        self._done = cupy.cuda.Event(disable_timing=True)
        self._done.record()

    def lossy(self):
        self._done.synchronize()
        return bool(self._host[0])


class _Plan:
    """A sort's plan: the key and value views, the buffers a call allocates, the upsweep and one
    prepared pass per digit place (``passes``; the per-call addresses are the source, middle and
    last keys, the value buffers the pass moves, the digit starts, the slot table and the two
    pass workspaces)."""

    __slots__ = ("dtype", "empty", "by_index", "places", "u", "vb", "vu", "widen", "mode", "ws_bytes",
                 "ws_count", "tmp_count", "upsweep", "passes", "values_in", "begin_bit", "end_bit")


def _plan(dtype, n, values_itemsize, descending, begin_bit, end_bit, iota, want_keys, device_id):
    dtype = check_key_dtype(dtype)
    begin_bit, end_bit = check_bits(begin_bit, end_bit, dtype.itemsize)
    p = _Plan()
    p.dtype, p.begin_bit, p.end_bit = dtype, begin_bit, end_bit
    p.empty = n == 0
    p.by_index = False
    if p.empty:
        return p
    kb = dtype.itemsize
    p.u = UNSIGNED[kb]
    mode = key_mode(dtype, descending)
    vb, widen = value_plan(n, values_itemsize, iota)
    if values_itemsize is not None and vb == 0:
        p.by_index = True  # values the kernels do not carry: sort indices, then gather
        return p
    p.places = places = len(digit_places(begin_bit, end_bit))
    if places == 0:
        return p
    if want_keys and mode & MODE_FLOAT:
        mode |= MODE_PLAIN  # exact unless a key is lossy, and then these passes' keys are dropped
    p.mode, p.vb, p.widen = mode, vb, widen
    p.vu = UNSIGNED[vb] if vb else None
    tile = tile_size(kb, vb)
    p.ws_bytes = workspace_bytes(n, tile)
    p.ws_count = min(2, places)
    p.tmp_count = min(2, places - 1)
    p.values_in = bool(vb and not iota)
    p.upsweep = plans.cache.lookup(("prim.sort.upsweep", kb, n, mode, begin_bit, end_bit, device_id),
                                   lambda: _upsweep_plan(kb, n, mode, begin_bit, end_bit, device_id))
    kernel = _kernels[onesweep_name(kb, vb)]
    ptr, i32, null = launch.POINTER, numpy.int32, numpy.uint64(0)
    values = (ptr, ptr, ptr) if vb else (null, null, null)  # source, middle and last values
    host_flags = (F_KEYS if want_keys else 0) | (F_VWIDE if widen else 0)
    ntiles = -(-n // tile)
    p.passes = tuple(
        kernel.prepare(device_id, ntiles,
                       (ptr, ptr, ptr) + values
                       + (numpy.int64(n), i32(begin_bit), i32(end_bit), i32(slot), i32(mode),
                          i32(host_flags | ((F_TIN | (F_VIOTA if iota else 0)) if slot == 0 else 0)),
                          ptr, ptr, ptr, ptr, i32(n >= WIDE_STATUS_N)))
        for slot in range(places))
    return p


def _run(keys, values, *, descending, begin_bit, end_bit, iota, want_keys, out_keys=None):
    """The sort engine. ``keys``: 1-D device keys; ``values``: 1-D device values or None;
    ``iota``: sort the indices 0..n-1 as values (int64 result). Returns ``(keys or None,
    values or None)``; keys only when ``want_keys`` (into ``out_keys`` if given).

    Every pass is queued without waiting for the device: the passes read the slot table that the
    upsweep left on the device. Only a sort that returns float keys waits, after queuing all
    passes, for the upsweep's lossy flag (then redoes the sort as an index sort and a gather)."""
    cupy = backend.cupy()
    n = keys.size
    vsize = None if values is None else values.dtype.itemsize
    p = plans.cache.lookup(
        ("prim.sort", keys.dtype, n, vsize, descending, begin_bit, end_bit, iota, want_keys, keys.data.device_id),
        lambda: _plan(keys.dtype, n, vsize, descending, begin_bit, end_bit, iota, want_keys, keys.data.device_id))
    dtype = p.dtype
    vdtype = _I64 if iota else (values.dtype if values is not None else None)
    if want_keys and out_keys is None:
        out_keys = cupy.empty(n, dtype=dtype)
    if p.empty:
        return (out_keys if want_keys else None), (cupy.empty(0, vdtype) if vdtype is not None else None)
    keys = cupy.ascontiguousarray(keys)
    if values is not None:
        values = cupy.ascontiguousarray(values)
    begin_bit, end_bit = p.begin_bit, p.end_bit
    if p.by_index:
        return _by_index_sort(keys, values, descending, begin_bit, end_bit, want_keys, out_keys)
    places = p.places
    if places == 0:  # no bits to sort on: the input order is the sorted order
        ko = None
        if want_keys:
            cupy.copyto(out_keys, keys)
            ko = out_keys
        vo = cupy.arange(n, dtype=_I64) if iota else (values.copy() if values is not None else None)
        return ko, vo

    u, vb, vu = p.u, p.vb, p.vu
    kbits = keys.view(u)
    ws = [cupy.empty(p.ws_bytes, dtype=numpy.uint8) for _ in range(p.ws_count)]
    stream = cupy.cuda.get_current_stream().ptr
    cupy.cuda.runtime.memsetAsync(ws[0].data.ptr, 0, p.ws_bytes, stream)  # the first pass's; each
    # pass zeroes the next one's
    meta = cupy.zeros(meta_layout(places)["size"], dtype=numpy.uint64)
    p.upsweep(kbits.data.ptr, meta.data.ptr)
    lossy_flag = _HostFlags(meta, places) if p.mode & MODE_PLAIN else None  # (float keys returned)

    # Final destinations (a fresh array when out_keys overlaps the input).
    kfinal = None
    if want_keys:
        kfinal = out_keys
        if cupy.may_share_memory(kfinal, keys):
            kfinal = cupy.empty(n, dtype=dtype)
    vfinal = cupy.empty(n, dtype=_I64 if iota else values.dtype) if vb else None
    ktmp = [cupy.empty(n, dtype=u) for _ in range(p.tmp_count)]
    vtmp = [cupy.empty(n, dtype=vu) for _ in range(p.tmp_count)] if vb else []
    klast = kfinal.view(u) if want_keys else (ktmp[0] if ktmp else kbits)  # argsort: never written
    vlast = (vfinal if p.widen else vfinal.view(vu)) if vb else None

    at = p.upsweep.at
    starts, table = meta.data.ptr + at["starts"], meta.data.ptr + at["plan"]
    src_k = kbits
    src_v = values.view(vu) if p.values_in else None  # (an index sort makes its values in pass 0)
    for slot, go in enumerate(p.passes):
        # (with one temporary, slot 1 can only be the last pass: its mid buffer is never written)
        mid_k = ktmp[slot % len(ktmp)] if ktmp else klast
        ws_a, ws_b = ws[slot % 2].data.ptr, ws[(slot + 1) % len(ws)].data.ptr
        if vb:
            mid_v = vtmp[slot % len(vtmp)] if vtmp else vlast
            go(src_k.data.ptr, mid_k.data.ptr, klast.data.ptr, 0 if src_v is None else src_v.data.ptr,
               mid_v.data.ptr, vlast.data.ptr, starts, table, ws_a, ws_b)
            src_v = mid_v
        else:
            go(src_k.data.ptr, mid_k.data.ptr, klast.data.ptr, starts, table, ws_a, ws_b)
        src_k = mid_k

    if lossy_flag is not None and lossy_flag.lossy():
        # Keys the image does not restore bit for bit (-0.0, NaN payloads): the passes' keys are
        # dropped; sort indices, then gather.
        return _by_index_sort(keys, values, descending, begin_bit, end_bit, want_keys, out_keys)
    ko = None
    if want_keys:
        if kfinal is not out_keys:
            cupy.copyto(out_keys, kfinal)
        ko = out_keys
    return ko, vfinal


def _by_index_sort(keys, values, descending, begin_bit, end_bit, want_keys, out_keys):
    """``(keys, values)`` sorted by an index sort and gathers (``out_keys`` filled when given)."""
    _, perm = _run(keys, None, descending=descending, begin_bit=begin_bit, end_bit=end_bit, iota=True,
                   want_keys=False)
    ko = None
    if want_keys:
        ko = keys.take(perm)
        if out_keys is not None:
            backend.cupy().copyto(out_keys, ko)
            ko = out_keys
    return ko, (values.take(perm) if values is not None else None)


def _to_host(x):
    """``x`` copied to the host (the sort's one read-back, of segment offsets)."""
    return backend.cupy().asnumpy(x)


def _ends(offsets):
    """``(offsets[0], offsets[-1])`` on the host."""
    return int(_to_host(offsets[:1])[0]), int(_to_host(offsets[-1:])[0])


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------

def radix_sort_keys(keys, *, descending=False, begin_bit=0, end_bit=None, out=None):
    """Sort 1-D device keys (stable LSD radix sort).

    Parameters
    ----------
    keys : cupy.ndarray
        1-D; bool, any integer dtype, float16/32/64.
    descending : bool
        Largest first (NaNs first); ties keep their input order.
    begin_bit, end_bit : int
        Sort only on bits ``[begin_bit, end_bit)`` of the keys' order-preserving unsigned image
        (default: all bits).
    out : cupy.ndarray, optional
        1-D result of keys' shape and dtype (may be ``keys`` itself).

    Returns
    -------
    cupy.ndarray
        The sorted keys (bit for bit the input keys, -0.0 and NaN payloads included).

    Examples
    --------
    >>> ra.prim.radix_sort_keys(cupy.array([3.0, float("nan"), -1.0, 0.0]))   # doctest: +SKIP
    array([-1.,  0.,  3., nan])
    """
    _check_1d(keys, "keys")
    check_key_dtype(keys.dtype)
    if out is not None:
        _check_1d(out, "out")
        if out.shape != keys.shape or out.dtype != keys.dtype:
            raise ValueError(f"prim radix sort: out must have shape {keys.shape} and dtype {keys.dtype}, "
                             f"got {out.shape} {out.dtype}")
        if not out.flags.c_contiguous:
            res, _ = _run(keys, None, descending=descending, begin_bit=begin_bit, end_bit=end_bit,
                          iota=False, want_keys=True)
            backend.cupy().copyto(out, res)
            return out
    res, _ = _run(keys, None, descending=descending, begin_bit=begin_bit, end_bit=end_bit, iota=False,
                  want_keys=True, out_keys=out)
    return res


def radix_sort_pairs(keys, values, *, descending=False, begin_bit=0, end_bit=None):
    """Sort 1-D device keys and carry values along (stable).

    Parameters
    ----------
    keys : cupy.ndarray
        1-D keys as in :func:`radix_sort_keys`.
    values : cupy.ndarray
        1-D, same length, any dtype.
    descending : bool
        Largest first (NaNs first); ties keep their input order.
    begin_bit, end_bit : int
        Sort only on bits ``[begin_bit, end_bit)`` of the keys' order-preserving unsigned image
        (default: all bits).

    Returns
    -------
    sorted_keys, sorted_values : cupy.ndarray
        ``sorted_values[i]`` is the value that came with ``sorted_keys[i]``; ties keep input order.

    Examples
    --------
    >>> ra.prim.radix_sort_pairs(cupy.array([2, 1, 2]), cupy.array([0, 1, 2]))   # doctest: +SKIP
    (array([1, 2, 2]), array([1, 0, 2]))
    """
    _check_1d(keys, "keys")
    _check_1d(values, "values")
    check_key_dtype(keys.dtype)
    if values.shape != keys.shape:
        raise ValueError(f"prim radix sort: keys and values must have one length, got {keys.shape} and "
                         f"{values.shape}")
    return _run(keys, values, descending=descending, begin_bit=begin_bit, end_bit=end_bit, iota=False,
                want_keys=True)


def radix_argsort(keys, *, descending=False, begin_bit=0, end_bit=None):
    """int64 indices that sort 1-D device keys stably (``numpy.argsort(kind='stable')``).

    Parameters
    ----------
    keys : cupy.ndarray
        1-D keys as in :func:`radix_sort_keys`.
    descending : bool
        Largest first (NaNs first); ties keep their input order.
    begin_bit, end_bit : int
        Sort only on bits ``[begin_bit, end_bit)`` of the keys' order-preserving unsigned image
        (default: all bits).

    Returns
    -------
    cupy.ndarray
        int64 indices into ``keys``.

    Examples
    --------
    >>> ra.prim.radix_argsort(cupy.array([2, 1, 2]))   # doctest: +SKIP
    array([1, 0, 2])
    """
    _check_1d(keys, "keys")
    check_key_dtype(keys.dtype)
    return _run(keys, None, descending=descending, begin_bit=begin_bit, end_bit=end_bit, iota=True,
                want_keys=False)[1]


def _segment_ids(offsets, n):
    """uint32 id of each element's segment: the number of offsets <= its index."""
    nseg = offsets.size - 1
    ids = backend.cupy().empty(n, dtype=numpy.uint32)
    if n:
        device_id = offsets.data.device_id
        kernel = _kernels[SEGMENT_IDS_NAME]
        grid = max(1, min(-(-n // BLOCK), 4 * kernel.wave(device_id)))
        kernel(device_id, grid, (offsets, numpy.int64(nseg), ids, numpy.int64(n)))
    return ids


def _check_offsets(offsets, n):
    _check_1d(offsets, "offsets")
    if offsets.dtype.kind not in "iu" or offsets.size < 1:
        raise ValueError("prim radix sort: offsets must be a non-empty 1-D integer array (nseg + 1 entries)")
    first, last = _ends(offsets)
    if first != 0 or last != n:
        raise ValueError(f"prim radix sort: offsets must start at 0 and end at len(keys) = {n}, "
                         f"got {first} .. {last}")
    return backend.cupy().ascontiguousarray(offsets.astype(_I64, copy=False))


def _by_segment(ids, perm, nseg):
    """Stable re-sort of ``perm`` by ``ids[perm]`` (ids < nseg + 2): the second LSD key."""
    end_bit = max(1, int(nseg + 1).bit_length())
    _, p2 = _run(ids.take(perm), perm, descending=False, begin_bit=0, end_bit=end_bit, iota=False,
                 want_keys=False)
    return p2


def segmented_radix_sort_keys(keys, offsets, *, descending=False, begin_bit=0, end_bit=None):
    """Sort every segment ``keys[offsets[s]:offsets[s + 1]]`` of 1-D keys on its own.

    Parameters
    ----------
    keys : cupy.ndarray
        1-D keys as in :func:`radix_sort_keys`.
    offsets : cupy.ndarray
        1-D integers, ``nseg + 1`` non-decreasing entries from 0 to ``len(keys)`` (segments may be
        empty).
    descending : bool
        Largest first (NaNs first); ties keep their input order within a segment.
    begin_bit, end_bit : int
        Sort only on bits ``[begin_bit, end_bit)`` of the keys' order-preserving unsigned image
        (default: all bits).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.prim.segmented_radix_sort_keys(cupy.array([3, 1, 2, 9, 0]), cupy.array([0, 3, 3, 5]))  # doctest: +SKIP
    array([1, 2, 3, 0, 9])
    """
    return segmented_radix_sort_pairs(keys, offsets, None, descending=descending, begin_bit=begin_bit,
                                      end_bit=end_bit)[0]


def segmented_radix_sort_pairs(keys, offsets, values, *, descending=False, begin_bit=0, end_bit=None):
    """Segmented sort of keys with values carried along (stable within each segment).

    Parameters
    ----------
    keys : cupy.ndarray
        1-D keys as in :func:`radix_sort_keys`.
    offsets : cupy.ndarray
        1-D integers, ``nseg + 1`` non-decreasing entries from 0 to ``len(keys)`` (segments may be
        empty).
    values : cupy.ndarray or None
        1-D of keys' length, any dtype; None sorts the keys alone.
    descending : bool
        Largest first (NaNs first); ties keep their input order within a segment.
    begin_bit, end_bit : int
        Sort only on bits ``[begin_bit, end_bit)`` of the keys' order-preserving unsigned image
        (default: all bits).

    Returns
    -------
    sorted_keys : cupy.ndarray
    sorted_values : cupy.ndarray or None
        None without values.
    """
    _check_1d(keys, "keys")
    check_key_dtype(keys.dtype)
    if values is not None:
        _check_1d(values, "values")
        if values.shape != keys.shape:
            raise ValueError("prim radix sort: keys and values must have one length")
    n = keys.size
    offs = _check_offsets(offsets, n)
    if n == 0:
        return keys.copy(), (values.copy() if values is not None else None)
    _, perm = _run(keys, None, descending=descending, begin_bit=begin_bit, end_bit=end_bit, iota=True,
                   want_keys=False)
    nseg = offs.size - 1
    if nseg > 1:
        perm = _by_segment(_segment_ids(offs, n), perm, nseg)
    return keys.take(perm), (values.take(perm) if values is not None else None)


def sort_rows(x, *, indices=False):
    """Stable sort of every row of a C-contiguous 2-D device array (or the int64 argsort of every row).

    Rows are sorted together: a stable sort of all keys, then a stable sort by row id limited to
    the row id's bits.
    """
    rows, n = x.shape
    flat = x.reshape(-1)
    if rows == 1 or n <= 1:
        if n <= 1:
            return backend.cupy().zeros(x.shape, _I64) if indices else x.copy()
        res = (radix_argsort(flat) if indices else radix_sort_keys(flat))
        return res.reshape(x.shape)
    perm = radix_argsort(flat)
    rid = perm // n
    end_bit = max(1, int(rows - 1).bit_length())
    _, perm = _run(rid, perm, descending=False, begin_bit=0, end_bit=end_bit, iota=False, want_keys=False)
    if indices:
        return (perm % n).reshape(x.shape)
    return flat.take(perm).reshape(x.shape)
