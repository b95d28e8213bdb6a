"""The forward implicit-GEMM convolution on the sm_90a warpgroup matrix instructions (kernel
``miopen/conv_wgmma.hip``, which states the layouts), fed by TMA copies of the tensors
themselves: float16 and bfloat16, channels-last layout, 2-D, stride 1, one group, any padding and
dilation, input channels a multiple of 8, any output channels, bias and activation fused.

It takes over the forward of :mod:`rocarray.miopen._conv_implicit_gemm` where :func:`applies`
holds (compute capability 9.0 exactly: the instructions exist only there); every other problem
and device, and a call whose tensors are not 16-byte aligned or whose tensor map the driver
refuses, keeps the ``mma.sync`` / scalar kernels.

Tensor maps are tiled-mode maps (:mod:`rocarray._core.tensor_maps`): the activation operand of a
k tile (one filter tap, 64 channels) is a box of a rectangle of 64 pixels of the input shifted by
the tap, its padding the map's zero fill of coordinates outside the image. (The im2col mode
gathers a run of consecutive output pixels instead, but its bounding box is fixed per map from
the padding and filter size and the tap goes in as offsets: the tiled map of the plain 4-D tensor
needs no per-problem corner arithmetic and gives the same copies, at the cost of partial
rectangles at image edges, which :func:`rectangle` keeps small.) Stride 1 only: a strided
problem keeps the older kernels (in tiled mode it would need the map's traversal strides).
"""

import numpy

from rocarray._core import backend, dtypes, kernels, launch, plans, tensor_maps
from rocarray._core import compile as _compile

SOURCE = "miopen/conv_wgmma.hip"
#: Output pixels of a block tile (two rectangles, one per consumer warpgroup).
TILE_M = 128
#: Output pixels of one rectangle (the rows of one warpgroup's wgmma).
RECT = 64
#: Channels of one k tile (one 128-byte swizzle row of 16-bit elements).
BK = 64
#: Bytes of one operand row in shared memory.
ROW_BYTES = 128
#: Block tile widths (output channels): 128 for K <= 128, else 256.
TILE_WIDTHS = (128, 256)
#: Deepest ring by tile width (slots of 32 KiB and 48 KiB: about 192 KiB either way).
STAGES = {128: 6, 256: 4}
#: The epilogue goes through shared memory and out as 16-byte stores where the output channels
#: are a multiple of 8 (the kernel's ``g.staged``; 64 x ``tile_n`` bytes a consumer warpgroup).
#: False: every problem stores straight from the accumulators (the way back).
STAGED_EPILOGUE = True
#: Fewest ring slots worth launching.
MIN_STAGES = 3
#: Threads of a block: two consumer warpgroups and one producer warp.
BLOCK = 2 * 128 + 32
#: Slot alignment (bytes) the swizzled layouts need; the kernel aligns its dynamic shared memory up.
ALIGN = 1024
#: Kernel element type of each dtype name taken.
CTYPES = {"float16": "ra_half", "bfloat16": dtypes.BFLOAT16}
#: The kernel counts tiles and TMA coordinates in 32 bits.
MAX_INT32 = 2**31 - 1
#: Fields of the kernel's ``ra_conv_wg_shape`` (32-bit each), in order.
SHAPE_FIELDS = ("n", "p", "q", "k", "s", "taps", "ctiles", "pad_h", "pad_w", "dil_h", "dil_w", "bh", "bw_log2",
                "rects_p", "rects_q", "tiles_m", "tiles_k", "staged")
_SHAPE = numpy.dtype((numpy.void, 4 * len(SHAPE_FIELDS)))


def kernel_name(dtype_name, tile_n):
    """Name expression of the kernel, e.g. ``'ra_miopen_conv_wgmma_fwd<ra_half, 256>'``."""
    return f"ra_miopen_conv_wgmma_fwd<{CTYPES[dtype_name]}, {int(tile_n)}>"


def instantiations():
    """Every name expression of the source: 2 dtypes x 2 tile widths."""
    return sorted(kernel_name(d, w) for d in CTYPES for w in TILE_WIDTHS)


_compile.register(SOURCE, instantiations())
KERNELS = kernels.Family(SOURCE, BLOCK, 1)


def shape_applies(problem):
    """Whether the kernel computes ``problem`` on a device where it runs: a forward 2-D
    convolution of float16 or bfloat16 in channels-last layout, one group, stride 1, input
    channels a multiple of 8 (TMA's 16-byte pixel rows), counts within 32 bits."""
    if not (problem.direction == "forward" and problem.nd == 2 and problem.channels_last and problem.groups == 1
            and problem.dtype.name in CTYPES and all(s == 1 for s in problem.stride) and problem.c % 8 == 0):
        return False
    if min(problem.n, problem.k, *problem.output_size) < 1:
        return False
    (h, w), (p, q) = problem.input_size, problem.output_size
    bh, bw = rectangle(p, q)
    rects = problem.n * -(-p // bh) * -(-q // bw)
    tiles = -(-rects // 2) * -(-problem.k // tile_width(problem.k))
    far = max(abs(v) for v in (h, w, problem.n, *problem.pad)) + max(
        d * f for d, f in zip(problem.dilation, problem.filter_size))
    return max(rects + 1, tiles, far + 2 * RECT) <= MAX_INT32


def device_applies(device_id):
    """Whether the kernel runs on ``device_id``: NVIDIA compute capability 9.0 exactly."""
    info = backend.device_info(device_id)
    return not info.is_hip and tuple(backend.compute_capability_version(info)) == (9, 0)


def applies(problem, device_id):
    """:func:`shape_applies` and :func:`device_applies`."""
    return shape_applies(problem) and device_applies(device_id)


def rectangle(p, q):
    """``(bh, bw)``: the rectangle of 64 output pixels (``bw`` a power of two) that covers a
    ``p`` x ``q`` output image with the fewest wasted pixels, the squarest among equals (its
    input halo is the smallest)."""
    def cost(shape):
        bh, bw = shape
        return -(-p // bh) * bh * -(-q // bw) * bw, abs(bh - bw)
    return min(((RECT >> e, 1 << e) for e in range(7)), key=cost)


def tile_width(k):
    """Output channels of a block tile: 128 for ``k <= 128`` (a 256-wide tile would multiply
    columns of nothing), else 256 (half the input traffic per FLOP of 128)."""
    return TILE_WIDTHS[0] if k <= TILE_WIDTHS[0] else TILE_WIDTHS[1]


def staged(k):
    """Whether problems of ``k`` output channels take the epilogue through shared memory."""
    return STAGED_EPILOGUE and int(k) % 8 == 0


def shared_bytes(tile_n, stages, staging=False):
    """Dynamic shared memory of one block: two 8-byte mbarriers per slot, then (from the next
    1024-byte boundary) ``stages`` slots of (128 + ``tile_n``) rows of 128 bytes, then with
    ``staging`` the two consumer warpgroups' staging areas of 64 x ``tile_n`` bytes."""
    return int(stages) * ((TILE_M + int(tile_n)) * ROW_BYTES + 16) + ALIGN + (2 * RECT * int(tile_n) if staging else 0)


def stages_for(tile_n, shared_limit, staging=False):
    """The deepest ring (at most :data:`STAGES`) that ``shared_limit`` bytes hold, or None below
    :data:`MIN_STAGES`."""
    for stages in range(STAGES[tile_n], MIN_STAGES - 1, -1):
        if shared_bytes(tile_n, stages, staging) <= shared_limit:
            return stages
    return None


def shape(problem, rect=None):
    """The kernel's ``ra_conv_wg_shape`` of ``problem`` (a size-one NumPy structure)."""
    p, q = problem.output_size
    bh, bw = rectangle(p, q) if rect is None else rect
    r, s = problem.filter_size
    rects_p, rects_q = -(-p // bh), -(-q // bw)
    values = (problem.n, p, q, problem.k, s, r * s, -(-problem.c // BK), *problem.pad, *problem.dilation, bh,
              bw.bit_length() - 1, rects_p, rects_q, -(-(problem.n * rects_p * rects_q) // 2),
              -(-problem.k // tile_width(problem.k)), int(staged(problem.k)))
    return numpy.array(values, numpy.int32).view(_SHAPE)


def input_map_geometry(problem, rect):
    """``(dims, strides in bytes, box)`` of the input's tensor map: the 4-D tensor (C, W, H, N) and
    a box of 64 channels x the ``rect`` = (bh, bw) rectangle of pixels."""
    (h, w), c = problem.input_size, problem.c
    return (c, w, h, problem.n), (2 * c, 2 * c * w, 2 * c * w * h), (BK, rect[1], rect[0], 1)


def weight_map_geometry(problem, tile_n):
    """``(dims, strides in bytes, box)`` of the weights' tensor map: the 3-D tensor (C, R S, K) and a
    box of 64 channels of one tap x ``tile_n`` output channels."""
    taps = problem.filter_size[0] * problem.filter_size[1]
    c = problem.c
    return (c, taps, problem.k), (2 * c, 2 * c * taps), (BK, 1, int(tile_n))


def _map(kind, address, geometry):
    dims, strides, box = geometry
    key = ("miopen.conv_wgmma", kind, int(address), dims, strides, box)
    return tensor_maps.tiled(key, address, 2, dims, strides, box)


class _Plan:
    """The prepared launch of one problem: ``plan(x, w, y, bias)`` takes device addresses and
    returns False (nothing launched) when the driver refuses a tensor map."""

    __slots__ = ("launch", "x_geometry", "w_geometry")

    def __init__(self, problem, activation_code, slope, stages, device_id):
        info = backend.device_info(device_id)
        rect = rectangle(*problem.output_size)
        tile_n = tile_width(problem.k)
        geometry = shape(problem, rect)
        tiles = int(geometry.view(numpy.int32)[SHAPE_FIELDS.index("tiles_m")]) * -(-problem.k // tile_n)
        grid = (max(1, min(tiles, int(info.multiprocessors))),)
        ARRAY, POINTER = launch.HOST_ARRAY, launch.POINTER
        self.launch = KERNELS[kernel_name(problem.dtype.name, tile_n)].prepare(
            device_id, grid, (ARRAY, ARRAY, POINTER, POINTER, geometry, numpy.int32(stages),
                              numpy.int32(activation_code), numpy.float32(slope)),
            shared=shared_bytes(tile_n, stages, staged(problem.k)),
            dependent=backend.grid_dependency(bool(info.is_hip), backend.compute_capability_version(info)[0]))
        self.x_geometry = input_map_geometry(problem, rect)
        self.w_geometry = weight_map_geometry(problem, tile_n)

    def __call__(self, x, w, y, bias):
        try:
            map_x = _map("x", x, self.x_geometry)
            map_w = _map("w", w, self.w_geometry)
        except tensor_maps.TensorMapError:
            return False
        self.launch(map_x, map_w, y, bias)
        return True


def _plan(problem, activation_code, slope, device_id):
    if not applies(problem, device_id):
        return None
    stages = stages_for(tile_width(problem.k), backend.shared_memory_limit(device_id), staged(problem.k))
    return None if stages is None else _Plan(problem, activation_code, slope, stages, device_id)


def forward(problem, x, w, y, bias=None, activation_code=0, slope=0.0):
    """``y := act(conv(x, w) + bias)`` on the warpgroup kernel, if it takes the call.

    Parameters
    ----------
    problem : ConvProblem
        A forward problem.
    x, w, y : cupy.ndarray
        Contiguous input, weights and output of ``problem``'s dtype and channels-last shapes;
        ``y`` is overwritten.
    bias : cupy.ndarray, optional
        Contiguous vector of ``problem.k`` elements of the dtype, added per output channel.
    activation_code : int
        The activation (:data:`rocarray.miopen._conv_direct.ACTIVATIONS`; 0: none).
    slope : float
        leaky_relu's negative slope (code 6).

    Returns
    -------
    bool
        True when the kernel was launched; False when it does not apply (problem, device,
        tensors not 16-byte aligned, output not 4-byte aligned, a tensor map refused): nothing
        was written.
    """
    device_id = x.data.device_id
    plan = plans.cache.lookup(("miopen.conv_wgmma", problem.key(), int(activation_code), float(slope), device_id),
                              lambda: _plan(problem, activation_code, slope, device_id))
    if plan is None:
        return False
    xp, wp, yp = x.data.ptr, w.data.ptr, y.data.ptr
    if xp % 16 or wp % 16 or yp % 4:
        return False
    return plan(xp, wp, yp, 0 if bias is None else bias.data.ptr)
