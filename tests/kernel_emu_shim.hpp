// The CUDA dialect on the host, for running rocarray's kernel sources on the CPU (tests/kernel_emu.py).
//
// Models: a grid runs its blocks one after another (in x, then y, then z order, or the reverse
// order: ROCARRAY_EMU_REVERSE_BLOCKS=1 in tests/kernel_emu.py), or, for a cooperative launch, all
// together (every block's fibers in one round-robin, each block with its own barriers, warps and
// shared memory, swapped in and out of the shared variables when the running block changes),
// each block as blockDim fibers
// (user-space contexts of the launching thread, one per GPU thread) run round-robin, each until
// it waits at a barrier or collective (or sleeps), so a block's threads interleave only there. __shared__ variables are
// function-scope statics (one block alive at a time), filled with 0xff bytes before each block;
// dynamic shared memory is a buffer the generated glue defines per `extern __shared__` name,
// filled likewise.
// __syncthreads is a block barrier that counts exited threads as arrived (Volta and later). Warp
// collectives (shuffles, ballot, __syncwarp) are a barrier of the warp's live lanes with an
// exchange buffer: a shuffle that reads a lane that did not take part (exited, or elsewhere)
// fails, lanes that meet at different kinds of collective fail, and a barrier no thread can leave
// (a __syncthreads that some lanes skip while their warp waits in a shuffle, say) fails as a
// deadlock. Atomics are GCC __atomic builtins (compare-and-swap loops for floating point).
//
// Targets: RA_CUDA with 32-lane warps, or RA_HIP with 64-lane wavefronts (HIP's mask-free
// collectives and _Float16 conversions).
//
// Thread-block clusters (RA_EMU_CLUSTER, for kernels that wrap their cluster primitives): a launch
// of one cluster runs as a cooperative launch (tests/kernel_emu.py: CLUSTER_KERNELS);
// emu::cluster_sync is a barrier of every thread of every block of the launch (threads that nap
// until the last arrives: every thread must reach it, an exited one never does; its halves
// emu::cluster_arrive and emu::cluster_wait split it as barrier.cluster.arrive / .wait do), and
// emu::cluster_map(p, rank) is where shared address p of the running block lies in block `rank`'s
// shared memory: p itself for the running block, else that block's saved copy (current, since
// it is not running; reads only).
//
// Does not model: partial shuffle masks (every collective is over the warp's live lanes),
// warp-synchronous code without __syncwarp (it is a data race here, as under independent thread
// scheduling), concurrently resident blocks outside a cooperative launch (a block that spin-waits
// on a later block never finishes unless it gives up on a clock64() limit: the launch's watchdog
// aborts the process; so does a thread that spin-waits on another
// of its block without __nanosleep, which never yields), memory spaces and their bounds, inline PTX
// and the fp16 conversions built on it (RA_CUDA).
#pragma once

#ifndef EMU_SWAPCONTEXT
// The fibers' _longjmp goes between stacks, which a fortified longjmp (__longjmp_chk, where a
// toolchain defines _FORTIFY_SOURCE by default) takes for a jump into a dead frame and aborts.
#undef _FORTIFY_SOURCE
#endif
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// Nothing of the shim is exported from a kernel library: each keeps its own runtime state, and only
// the generated entry points (after this header) are looked up.
#pragma GCC visibility push(hidden)

struct uint3 { unsigned x, y, z; };
// CUDA's vector types with their alignment, and their make_ functions.
#define EMU_VEC2(T, N, A)                                                      \
    struct alignas(A) N##2 { T x, y; };                                         \
    inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define EMU_VEC4(T, N, A)                                                      \
    struct alignas(A) N##4 { T x, y, z, w; };                                   \
    inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
EMU_VEC2(int, int, 8)
EMU_VEC2(unsigned, uint, 8)
EMU_VEC2(float, float, 8)
EMU_VEC2(double, double, 16)
EMU_VEC2(long long, longlong, 16)
EMU_VEC2(unsigned long long, ulonglong, 16)
EMU_VEC4(int, int, 16)
EMU_VEC4(unsigned, uint, 16)
EMU_VEC4(float, float, 16)
#undef EMU_VEC2
#undef EMU_VEC4
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace emu {

constexpr int WARP = RA_WARP_SIZE;
typedef unsigned long long Mask;  // a bit per lane, up to 64

struct Abort {};  // unwinds a kernel thread once the launch has failed

// Sync state of the running block: a barrier for the block and one per warp. The block's threads
// are fibers of the launching OS thread (user-space contexts, switched only where a thread waits),
// so the state needs no lock and a barrier costs a context switch, not a kernel wake-up.
struct Warp {
    int live = 0, arrived = 0, kind = 0;
    Mask live_mask = 0;                // lanes that have not exited
    unsigned long long round = 0;      // completed collectives
    unsigned long long took[2][WARP];  // round + 1 in which a lane wrote its exchange slot
    unsigned char slot[2][WARP][16];   // exchange buffer, double-buffered by round parity
};

struct Block {
    int live = 0, blocked = 0, arrived = 0;
    unsigned long long round = 0;
    bool failed = false;
    std::unique_ptr<Warp[]> warps;
};

// The runtime: one object per target (the EMU_RUNTIME part below, built once and linked into each
// kernel library, so every library keeps its own copy of this state).
extern std::string error;  // the first failure of the current launch ("" when none)
void record(const std::string& what);
// Registers a static __shared__ variable: filled with 0xff bytes now and before each block.
bool shared_region(void* p, size_t n);
extern uint3 thread_idx, block_idx;
extern int lane_id, warp_id;
extern dim3 block_dim, grid_dim;
extern Block* block;  // the running block
void nap();  // a thread that sleeps lets the others of its block run
void cluster_sync();                                   // RA_EMU_CLUSTER: see the header comment
unsigned long long cluster_arrive();                   // RA_EMU_CLUSTER: cluster_sync's two halves
void cluster_wait(unsigned long long token);
const void* cluster_map(const void* p, unsigned rank);  // RA_EMU_CLUSTER: see the header comment
[[noreturn]] void fail(const std::string& what);
std::string where();  // " (block (..), thread (..))" of the running thread
void syncthreads();
unsigned long long warp_meet(int kind, const void* value, size_t bytes);
Mask ballot(int predicate);
extern void (*fiber_body)();  // the kernel call of the running launch, entered by every fiber
int run_launch(dim3 grid, dim3 blk, double timeout_s, int reverse, int cooperative, const char* name);

enum Kind { SHFL = 1, BALLOT, SYNCWARP };

template <typename T> T shuffle(T v, int src, int width, const char* what) {
    static_assert(sizeof(T) <= 16, "a shuffled value is at most 16 bytes");
    if (width <= 0 || width > WARP || (width & (width - 1)))
        fail(std::string(what) + ": width must be a power of two up to the warp size" + where());
    const unsigned long long round = warp_meet(SHFL, &v, sizeof(T));
    const int par = (int)(round & 1);
    if (src == lane_id) return v;
    Warp& w = block->warps[warp_id];
    if (w.took[par][src] != round + 1)
        fail(std::string(what) + " reads lane " + std::to_string(src) + ", which did not take part (exited or "
             "diverged)" + where());
    T r;
    memcpy(&r, w.slot[par][src], sizeof(T));
    return r;
}

template <typename T> inline T bits_as(const void* p) {
    T r;
    memcpy(&r, p, sizeof(T));
    return r;
}

// Atomics: read-modify-write through a compare-and-swap loop on the value's bytes.
template <typename T, typename F> inline T rmw(T* p, F f) {
    T old;
    __atomic_load(p, &old, __ATOMIC_SEQ_CST);
    T next = f(old);
    while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) next = f(old);
    return old;
}

// The launch's arguments, their bytes copied into the kernel's parameter types.
template <typename... P, size_t... I>
inline std::tuple<std::decay_t<P>...> unpack(void** args, std::index_sequence<I...>) {
    std::tuple<std::decay_t<P>...> t;
    ((void)memcpy(&std::get<I>(t), args[I], sizeof(std::get<I>(t))), ...);
    return t;
}

template <typename... P> inline int param_sizes(void (*)(P...), unsigned long long* out) {
    const unsigned long long sizes[] = {sizeof(std::decay_t<P>)..., 0};
    for (size_t i = 0; i < sizeof...(P); ++i) out[i] = sizes[i];
    return (int)sizeof...(P);
}

// Runs one launch: the argument bytes are copied into the kernel's parameter types, then the runtime
// runs the grid.
template <typename... P>
inline int launch(void (*kernel)(P...), dim3 grid, dim3 blk, void** args, double timeout_s, int reverse,
                  int cooperative, const char* name) {
    static std::tuple<std::decay_t<P>...> values;
    values = unpack<P...>(args, std::index_sequence_for<P...>{});
    static void (*entry)(P...);
    entry = kernel;
    fiber_body = [] { std::apply(entry, values); };
    return run_launch(grid, blk, timeout_s, reverse, cooperative, name);
}

}  // namespace emu

#ifdef EMU_RUNTIME
namespace emu {

std::string error;
static std::mutex error_lock;

void record(const std::string& what) {
    std::lock_guard<std::mutex> g(error_lock);
    if (error.empty()) error = what;
}

// Static __shared__ variables, registered by the first thread to pass their declaration; filled
// with 0xff bytes then and between blocks (a GPU block starts with undefined shared memory).
static std::vector<std::pair<void*, size_t>> shared_regions;
bool shared_region(void* p, size_t n) {
    shared_regions.emplace_back(p, n);
    memset(p, 0xff, n);
    return true;
}
void poison_shared() {
    for (auto& r : shared_regions) memset(r.first, 0xff, r.second);
}

uint3 thread_idx, block_idx;
int lane_id = 0, warp_id = 0;
dim3 block_dim, grid_dim;
Block* block = nullptr;

// One GPU thread of the running block. A fiber that waits names what it waits for; the scheduler
// resumes it once that barrier's round has moved on (or the block failed).
enum Wait { RUNNABLE, AT_BLOCK, AT_WARP, DONE };
struct Fiber {
    ucontext_t ctx;  // the fiber's start (its own stack, entering fiber_entry)
#ifndef EMU_SWAPCONTEXT
    jmp_buf jb;           // where it resumes, once started
    bool started = false;
#endif
    uint3 idx;
    int lane = 0, warp = 0;
    Wait wait = RUNNABLE;
    unsigned long long round = 0;  // the round it waits to see completed
};
static ucontext_t scheduler_ctx;
static Fiber* current_fiber = nullptr;
#ifndef EMU_SWAPCONTEXT
// Switches after a fiber's start are _setjmp/_longjmp, which keep the signal mask as it is:
// swapcontext saves and restores it with a system call at every switch, which was most of an
// emulated run's time. (EMU_SWAPCONTEXT, kernel_emu.SWAPCONTEXT, switches with swapcontext.)
static jmp_buf scheduler_jb;
#endif

// Hands the processor back to the scheduler until this fiber's wait is over.
void yield_to_scheduler() {
    Fiber* self = current_fiber;
#ifdef EMU_SWAPCONTEXT
    swapcontext(&self->ctx, &scheduler_ctx);
#else
    if (!_setjmp(self->jb)) _longjmp(scheduler_jb, 1);
#endif
}

// Runs fiber f until it waits or leaves the kernel.
static void resume(Fiber& f) {
#ifdef EMU_SWAPCONTEXT
    swapcontext(&scheduler_ctx, &f.ctx);
#else
    if (!_setjmp(scheduler_jb)) {
        if (f.started) _longjmp(f.jb, 1);
        f.started = true;
        setcontext(&f.ctx);  // its first run starts fiber_entry on its own stack
    }
#endif
}

// A thread that sleeps lets the others of its block run (a spin-wait on them can finish).
void nap() {
    if (current_fiber == nullptr) return;
    current_fiber->wait = RUNNABLE;
    yield_to_scheduler();
    if (block->failed) throw Abort();
}

[[noreturn]] void fail_locked(Block& b, const std::string& what) {
    record(what);
    b.failed = true;
    throw Abort();
}

[[noreturn]] void fail(const std::string& what) {
    fail_locked(*block, what);
}

std::string where() {
    char buf[160];
    snprintf(buf, sizeof buf, " (block (%u,%u,%u), thread (%u,%u,%u))", block_idx.x, block_idx.y, block_idx.z,
             thread_idx.x, thread_idx.y, thread_idx.z);
    return buf;
}

// After a thread starts waiting or exits: every live thread waiting and none released is a deadlock.
void check_deadlock(Block& b) {
    if (b.live > 0 && b.blocked == b.live)
        fail_locked(b, "deadlock: every live thread of the block waits at a barrier that some never reach "
                       "(__syncthreads against a warp collective, or a collective skipped by some lanes)" + where());
}

void syncthreads() {
    Block& b = *block;
    if (b.failed) throw Abort();
    if (++b.arrived == b.live) {
        b.blocked -= b.arrived - 1;
        b.arrived = 0;
        ++b.round;
        return;
    }
    ++b.blocked;
    check_deadlock(b);
    current_fiber->wait = AT_BLOCK;
    current_fiber->round = b.round;
    yield_to_scheduler();
    if (b.failed) throw Abort();
}

// Releases the warp's collective: every live lane has arrived.
void release_warp(Block& b, Warp& w, int waiting) {
    b.blocked -= waiting;
    w.arrived = 0;
    w.kind = 0;
    ++w.round;
}

// One warp collective of kind `kind`: writes `bytes` of `value` to this lane's slot, waits for the
// warp's live lanes, returns the round's slots (valid until the lane's next collective).
unsigned long long warp_meet(int kind, const void* value, size_t bytes) {
    Block& b = *block;
    Warp& w = b.warps[warp_id];
    if (b.failed) throw Abort();
    const unsigned long long round = w.round;
    const int par = (int)(round & 1);
    if (w.arrived == 0) w.kind = kind;
    else if (w.kind != kind) fail_locked(b, "lanes of a warp meet at different kinds of warp collective" + where());
    if (bytes) memcpy(w.slot[par][lane_id], value, bytes);
    w.took[par][lane_id] = round + 1;
    if (++w.arrived == w.live) {
        release_warp(b, w, w.arrived - 1);
        return round;
    }
    ++b.blocked;
    check_deadlock(b);
    current_fiber->wait = AT_WARP;
    current_fiber->round = round;
    yield_to_scheduler();
    if (b.failed) throw Abort();
    return round;
}

// This thread leaves the kernel: it counts as arrived at every barrier it did not reach.
void thread_exit(Block& b) {
    --b.live;
    Warp& w = b.warps[warp_id];
    --w.live;
    w.live_mask &= ~(1ull << lane_id);
    if (b.failed) return;
    if (b.arrived > 0 && b.arrived == b.live) {
        b.blocked -= b.arrived;
        b.arrived = 0;
        ++b.round;
    }
    if (w.arrived > 0 && w.arrived == w.live) release_warp(b, w, w.arrived);
    try {
        check_deadlock(b);
    } catch (Abort&) {
    }
}

Mask ballot(int predicate) {
    const unsigned char p = predicate != 0;
    const unsigned long long round = warp_meet(BALLOT, &p, 1);
    const int par = (int)(round & 1);
    Warp& w = block->warps[warp_id];
    Mask mask = 0;
    for (int l = 0; l < WARP; ++l)  // a lane that did not take part votes 0
        if (w.took[par][l] == round + 1 && w.slot[par][l][0]) mask |= 1ull << l;
    return mask;
}

// The kernel call of the running launch, entered by every fiber.
void (*fiber_body)() = nullptr;

void fiber_entry() {
    try {
        fiber_body();
    } catch (Abort&) {
    } catch (std::exception& e) {
        record(std::string("exception: ") + e.what() + where());
    }
    thread_exit(*block);
    current_fiber->wait = DONE;
#ifndef EMU_SWAPCONTEXT
    _longjmp(scheduler_jb, 1);  // never returns: the fiber is done
#endif
    // returning resumes the scheduler (uc_link)
}

// Per-fiber stacks: kernels keep register tiles in locals, so each gets room to spare; the pages
// are reserved, not touched, until used.
constexpr size_t FIBER_STACK = 1024 * 1024;

// Aborts the process when a launch runs longer than its timeout (a fiber that spins on a block
// that runs later, or an endless loop, never yields).
struct Watchdog {
    std::mutex m;
    std::condition_variable cv;
    bool finished = false;
    std::thread thread;
    Watchdog(double timeout_s, const char* name, const long long* current, long long nblocks)
        : thread([this, timeout_s, name, current, nblocks] {
              std::unique_lock<std::mutex> g(m);
              if (!cv.wait_for(g, std::chrono::duration<double>(timeout_s), [&] { return finished; })) {
                  fprintf(stderr, "kernel_emu: %s did not finish in %.0f s (block %lld of %lld): a spin-wait on a "
                                  "block that runs later, or an endless loop. Aborting.\n",
                          name, timeout_s, __atomic_load_n(current, __ATOMIC_RELAXED), nblocks);
                  fflush(stderr);
                  abort();
              }
          }) {}
    ~Watchdog() {
        {
            std::lock_guard<std::mutex> g(m);
            finished = true;
        }
        cv.notify_all();
        thread.join();
    }
};

// Shared memory of the blocks of a cooperative launch that are not running now: the running
// block's contents live in the registered regions; switching blocks saves them and restores (or,
// for a block that has not yet seen a region, poisons) the next one's.
struct SharedSave {
    std::vector<std::vector<unsigned char>> regions;
};

void switch_shared(SharedSave& out, SharedSave& in) {
    out.regions.resize(shared_regions.size());
    for (size_t r = 0; r < shared_regions.size(); ++r) {
        auto& region = shared_regions[r];
        const unsigned char* p = (const unsigned char*)region.first;
        out.regions[r].assign(p, p + region.second);
        if (r < in.regions.size() && in.regions[r].size() == region.second)
            memcpy(region.first, in.regions[r].data(), region.second);
        else
            memset(region.first, 0xff, region.second);
    }
}

// The cooperative group of the running launch, for the cluster model: the blocks' saved shared
// memory, their indices, the one whose shared memory is in the regions, and the cluster barrier.
static std::vector<SharedSave>* group_saves = nullptr;
static const std::vector<uint3>* group_ids = nullptr;
static long long loaded = 0;
static long long cluster_threads = 0, cluster_arrived = 0;
static unsigned long long cluster_round = 0;

void cluster_sync() {
    if (group_saves == nullptr) fail("a cluster barrier outside a cooperative launch" + where());
    const unsigned long long round = cluster_round;
    if (++cluster_arrived == cluster_threads) {
        cluster_arrived = 0;
        ++cluster_round;
        return;
    }
    while (cluster_round == round) nap();
}

// The split barrier: the arrival returns the round it joined; the wait naps until that round
// is over (every thread of the launch arrived). A thread waits before it arrives again.
unsigned long long cluster_arrive() {
    if (group_saves == nullptr) fail("a cluster barrier outside a cooperative launch" + where());
    const unsigned long long round = cluster_round;
    if (++cluster_arrived == cluster_threads) {
        cluster_arrived = 0;
        ++cluster_round;
    }
    return round;
}

void cluster_wait(unsigned long long token) {
    while (cluster_round == token) nap();
}

const void* cluster_map(const void* p, unsigned rank) {
    if (group_saves == nullptr) fail("a cluster shared-memory read outside a cooperative launch" + where());
    const unsigned char* q = (const unsigned char*)p;
    for (size_t r = 0; r < shared_regions.size(); ++r) {
        const unsigned char* base = (const unsigned char*)shared_regions[r].first;
        if (q < base || q >= base + shared_regions[r].second) continue;
        for (size_t g = 0; g < group_ids->size(); ++g) {
            const uint3 id = (*group_ids)[g];
            if (id.x != rank || id.y != block_idx.y || id.z != block_idx.z) continue;
            if ((long long)g == loaded) return p;
            const auto& save = (*group_saves)[g].regions;
            if (r >= save.size() || save[r].size() != shared_regions[r].second)
                fail("a cluster read of a block that has not reached its shared memory yet" + where());
            return save[r].data() + (q - base);
        }
        fail("a cluster read of a block outside the launch" + where());
    }
    fail("a cluster read of an address outside shared memory" + where());
}

// Runs the launch whose kernel call fiber_body makes (emu::launch set it up).
int run_launch(dim3 grid, dim3 blk, double timeout_s, int reverse, int cooperative, const char* name) {
    error.clear();
    poison_shared();
    const int n = (int)(blk.x * blk.y * blk.z);
    const long long nblocks = (long long)grid.x * grid.y * grid.z;
    if (n < 1 || n > 1024 || nblocks < 1) {
        error = "bad launch dimensions";
        return 1;
    }
    // a cooperative launch runs all its blocks together (their fibers interleave); otherwise one
    // block at a time
    const long long group = cooperative ? nblocks : 1;
    if (group > 4096) {
        error = "a cooperative launch of more than 4096 blocks";
        return 1;
    }
    block_dim = blk;
    grid_dim = grid;
    const int nwarps = (n + WARP - 1) / WARP;
    std::vector<Block> blocks(group);
    std::vector<uint3> block_ids(group);
    std::vector<SharedSave> saves(group);
    for (auto& b : blocks) b.warps.reset(new Warp[nwarps]);
    const long long nfibers = (long long)n * group;
    std::vector<Fiber> fibers(nfibers);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t span = FIBER_STACK + page;  // a guard page below each stack
    char* stacks = (char*)mmap(nullptr, span * nfibers, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (stacks == MAP_FAILED) {
        error = "could not map the fibers' stacks";
        return 1;
    }
    for (long long t = 0; t < nfibers; ++t) mprotect(stacks + t * span, page, PROT_NONE);
    bool failed = false;
    long long current = 0;  // the block (or first block of the group) running now
    {
        Watchdog watchdog(timeout_s, name, &current, nblocks);
        for (long long k0 = 0; k0 < nblocks && !failed; k0 += group) {
            __atomic_store_n(&current, k0, __ATOMIC_RELAXED);
            for (long long g = 0; g < group; ++g) {
                const long long k = k0 + g;
                const long long id = reverse ? nblocks - 1 - k : k;
                block_ids[g] = uint3{(unsigned)(id % grid.x), (unsigned)(id / grid.x % grid.y),
                                     (unsigned)(id / (grid.x * grid.y))};
                Block& b = blocks[g];
                b.live = n;
                b.blocked = b.arrived = 0;
                b.failed = false;
                for (int w = 0; w < nwarps; ++w) {
                    b.warps[w].live = (w + 1) * WARP <= n ? WARP : n - w * WARP;
                    b.warps[w].live_mask = b.warps[w].live == 64 ? ~0ull : (1ull << b.warps[w].live) - 1ull;
                    b.warps[w].arrived = 0;
                    b.warps[w].kind = 0;
                }
                saves[g].regions.clear();
                for (int t = 0; t < n; ++t) {
                    Fiber& f = fibers[g * n + t];
                    f.idx = uint3{(unsigned)(t % blk.x), (unsigned)(t / blk.x % blk.y),
                                  (unsigned)(t / (blk.x * blk.y))};
                    f.lane = t % WARP;
                    f.warp = t / WARP;
                    f.wait = RUNNABLE;
#ifndef EMU_SWAPCONTEXT
                    f.started = false;
#endif
                    getcontext(&f.ctx);
                    f.ctx.uc_stack.ss_sp = stacks + (g * n + t) * span + page;
                    f.ctx.uc_stack.ss_size = FIBER_STACK;
                    f.ctx.uc_link = &scheduler_ctx;
                    makecontext(&f.ctx, fiber_entry, 0);
                }
            }
            if (k0) poison_shared();
            loaded = 0;  // the block whose shared memory is in the regions
            group_saves = cooperative ? &saves : nullptr;
            group_ids = &block_ids;
            cluster_threads = (long long)n * group;
            cluster_arrived = 0;
            // round-robin over the fibers that can run, until every one has left the kernel
            long long done = 0;
            while (done < nfibers) {
                bool ran = false;
                for (long long t = 0; t < nfibers; ++t) {
                    Fiber& f = fibers[t];
                    if (f.wait == DONE) continue;
                    const long long g = t / n;
                    Block& b = blocks[g];
                    if (!b.failed && ((f.wait == AT_BLOCK && b.round == f.round) ||
                                      (f.wait == AT_WARP && b.warps[f.warp].round == f.round)))
                        continue;
                    if (g != loaded) {
                        switch_shared(saves[loaded], saves[g]);
                        loaded = g;
                    }
                    block = &b;
                    block_idx = block_ids[g];
                    f.wait = RUNNABLE;
                    current_fiber = &f;
                    thread_idx = f.idx;
                    lane_id = f.lane;
                    warp_id = f.warp;
                    resume(f);
                    ran = true;
                    if (f.wait == DONE) ++done;
                    if (b.failed && !failed) {  // one block's failure ends the launch
                        failed = true;
                        for (auto& other : blocks) other.failed = true;
                    }
                }
                if (!ran && done < nfibers) {
                    // every waiting thread waits for a barrier no runnable thread can reach
                    record("deadlock: every live thread of the block waits at a barrier that some never reach"
                           " (__syncthreads against a warp collective, or a collective skipped by some lanes)");
                    failed = true;
                    for (auto& other : blocks) other.failed = true;
                }
            }
        }
    }
    current_fiber = nullptr;
    group_saves = nullptr;
    group_ids = nullptr;
    munmap(stacks, span * nfibers);
    block = nullptr;
    return error.empty() ? 0 : 1;
}

}  // namespace emu
#endif  // EMU_RUNTIME

// ---- the dialect ----
#define RA_EMU_CLUSTER 1  // kernels may use emu::cluster_sync and emu::cluster_map
#define threadIdx (emu::thread_idx)
#define blockIdx (emu::block_idx)
#define blockDim (emu::block_dim)
#define gridDim (emu::grid_dim)
#define warpSize RA_WARP_SIZE
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

inline void __syncthreads() { emu::syncthreads(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu::warp_meet(emu::SYNCWARP, nullptr, 0); }
// The lanes that have not exited (the emulator does not track divergence).
inline unsigned __activemask() { return (unsigned)emu::block->warps[emu::warp_id].live_mask; }
inline unsigned __ballot_sync(unsigned, int p) { return (unsigned)emu::ballot(p); }
inline int __any_sync(unsigned, int p) { return emu::ballot(p) != 0; }
inline int __all_sync(unsigned m, int p) { return emu::ballot(!p) == 0; }
template <typename T> T __shfl_sync(unsigned, T v, int src, int width = RA_WARP_SIZE) {
    const int base = emu::lane_id & ~(width - 1);
    return emu::shuffle(v, base + (src & (width - 1)), width, "__shfl_sync");
}
template <typename T> T __shfl_xor_sync(unsigned, T v, int m, int width = RA_WARP_SIZE) {
    const int s = emu::lane_id ^ m;
    const int base = emu::lane_id & ~(width - 1);
    return emu::shuffle(v, s >= base + width ? emu::lane_id : s, width, "__shfl_xor_sync");
}
template <typename T> T __shfl_down_sync(unsigned, T v, unsigned d, int width = RA_WARP_SIZE) {
    const int seg = emu::lane_id & (width - 1);
    return emu::shuffle(v, seg + (int)d < width ? emu::lane_id + (int)d : emu::lane_id, width, "__shfl_down_sync");
}
template <typename T> T __shfl_up_sync(unsigned, T v, unsigned d, int width = RA_WARP_SIZE) {
    const int seg = emu::lane_id & (width - 1);
    return emu::shuffle(v, seg >= (int)d ? emu::lane_id - (int)d : emu::lane_id, width, "__shfl_up_sync");
}

// HIP's spellings (RA_HIP targets, wave64): the same collectives without masks.
#if defined(RA_HIP)
template <typename T> T __shfl(T v, int src, int width = RA_WARP_SIZE) { return __shfl_sync(0u, v, src, width); }
template <typename T> T __shfl_xor(T v, int m, int width = RA_WARP_SIZE) { return __shfl_xor_sync(0u, v, m, width); }
template <typename T> T __shfl_down(T v, unsigned d, int width = RA_WARP_SIZE) {
    return __shfl_down_sync(0u, v, d, width);
}
template <typename T> T __shfl_up(T v, unsigned d, int width = RA_WARP_SIZE) { return __shfl_up_sync(0u, v, d, width); }
inline unsigned long long __ballot(int p) { return emu::ballot(p); }
#define __builtin_amdgcn_wave_barrier() __syncwarp()
#define __builtin_amdgcn_s_sleep(n) emu::nap()
#endif

inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
[[noreturn]] inline void __trap() { emu::fail("__trap()" + emu::where()); }
inline void __nanosleep(unsigned) { emu::nap(); }
// the clock counts nanoseconds of the host's steady clock
inline long long clock64() {
    return (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

// atomics
#define EMU_ATOMIC_INT(T)                                                                               \
    inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }               \
    inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }               \
    inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }                 \
    inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }               \
    inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }               \
    inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }             \
    inline T atomicMin(T* p, T v) { return emu::rmw(p, [v](T o) { return v < o ? v : o; }); }          \
    inline T atomicMax(T* p, T v) { return emu::rmw(p, [v](T o) { return o < v ? v : o; }); }          \
    inline T atomicCAS(T* p, T c, T v) {                                                               \
        __atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);              \
        return c;                                                                                      \
    }
EMU_ATOMIC_INT(int)
EMU_ATOMIC_INT(unsigned int)
EMU_ATOMIC_INT(long long)
EMU_ATOMIC_INT(unsigned long long)
#undef EMU_ATOMIC_INT
inline float atomicAdd(float* p, float v) { return emu::rmw(p, [v](float o) { return o + v; }); }
inline double atomicAdd(double* p, double v) { return emu::rmw(p, [v](double o) { return o + v; }); }
inline float atomicExch(float* p, float v) {
    float old;
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
    return old;
}
inline unsigned atomicInc(unsigned* p, unsigned limit) {
    return emu::rmw(p, [limit](unsigned o) { return o >= limit ? 0u : o + 1u; });
}
inline unsigned atomicDec(unsigned* p, unsigned limit) {
    return emu::rmw(p, [limit](unsigned o) { return (o == 0u || o > limit) ? limit : o - 1u; });
}

// math and bit intrinsics
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline void sincospi(double x, double* s, double* c) {
    *s = sin(M_PI * x);
    *c = cos(M_PI * x);
}
inline void sincospif(float x, float* s, float* c) {
    *s = sinf((float)M_PI * x);
    *c = cosf((float)M_PI * x);
}
// (only inline PTX takes a shared-window address; this makes such kernels fail at the asm)
inline size_t __cvta_generic_to_shared(const void* p) { return (size_t)p; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned long long __brevll(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
template <typename T> inline T __ldg(const T* p) { return *p; }
inline int __float_as_int(float x) { return emu::bits_as<int>(&x); }
inline unsigned __float_as_uint(float x) { return emu::bits_as<unsigned>(&x); }
inline float __int_as_float(int x) { return emu::bits_as<float>(&x); }
inline float __uint_as_float(unsigned x) { return emu::bits_as<float>(&x); }
inline long long __double_as_longlong(double x) { return emu::bits_as<long long>(&x); }
inline double __longlong_as_double(long long x) { return emu::bits_as<double>(&x); }

// CUDA's min/max: integer and floating overloads with the usual arithmetic conversions.
namespace emu {
template <typename A, typename B>
using arithmetic2 = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>;
}
template <typename A, typename B, typename = emu::arithmetic2<A, B>>
inline std::common_type_t<A, B> min(A a, B b) {
    typedef std::common_type_t<A, B> C;
    return (C)b < (C)a ? (C)b : (C)a;
}
template <typename A, typename B, typename = emu::arithmetic2<A, B>>
inline std::common_type_t<A, B> max(A a, B b) {
    typedef std::common_type_t<A, B> C;
    return (C)a < (C)b ? (C)b : (C)a;
}

#pragma GCC visibility pop
