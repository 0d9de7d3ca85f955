// PTX probes: one tiny kernel per (operation, type, order, scope) of the atomic API and
// per data-movement, signal and barrier primitive. The build compiles this file to PTX
// with the project's CUDA flags; ptx_test.cc checks each kernel's instructions.
// Kernel names: probe_<op>_<type>_<order>_<scope> (atomics), probe_<what> (others).
#include <cooperative_groups.h>

#include <cstdint>

#include "probe_grid.hpp"
#include "symm/symm.cuh"

using namespace symm::device;

namespace {

using i16 = std::int16_t;
using u16 = std::uint16_t;
using i32 = std::int32_t;
using u32 = std::uint32_t;
using i64 = std::int64_t;
using u64 = std::uint64_t;
using f16 = __half;
using bf16 = __nv_bfloat16;
using f32 = float;
using f64 = double;

// io[0], io[1]: operands in; io[0]: result out. Operands come from memory so that
// nothing is folded away.
#define SYMM_PROBE_CALL(op, call)                                                         \
  template <cuda::memory_order O, cuda::thread_scope S, class T>                          \
  __device__ void run_##op(const Context& ctx, T* p, int peer, T* io) {                   \
    call;                                                                                 \
  }
SYMM_PROBE_CALL(add, io[0] = (atomic_add<O, S>(ctx, p, peer, io[0])))
SYMM_PROBE_CALL(sub, io[0] = (atomic_sub<O, S>(ctx, p, peer, io[0])))
SYMM_PROBE_CALL(bit_and, io[0] = (atomic_and<O, S>(ctx, p, peer, io[0])))
SYMM_PROBE_CALL(bit_or, io[0] = (atomic_or<O, S>(ctx, p, peer, io[0])))
SYMM_PROBE_CALL(bit_xor, io[0] = (atomic_xor<O, S>(ctx, p, peer, io[0])))
SYMM_PROBE_CALL(min, io[0] = (atomic_min<O, S>(ctx, p, peer, io[0])))
SYMM_PROBE_CALL(max, io[0] = (atomic_max<O, S>(ctx, p, peer, io[0])))
SYMM_PROBE_CALL(xchg, io[0] = (atomic_xchg<O, S>(ctx, p, peer, io[0])))
SYMM_PROBE_CALL(cas, io[0] = (atomic_cas<O, S>(ctx, p, peer, io[0], io[1])))
SYMM_PROBE_CALL(load, io[0] = (atomic_load<O, S>(ctx, p, peer)))
SYMM_PROBE_CALL(store, (atomic_store<O, S>(ctx, p, peer, io[0])))
#undef SYMM_PROBE_CALL

}  // namespace

#define SYMM_PROBE(op, type, order, scope)                                                 \
  extern "C" __global__ void probe_##op##_##type##_##order##_##scope(Context ctx, type* p,  \
                                                                     int peer, type* io) { \
    run_##op<cuda::memory_order_##order, cuda::thread_scope_##scope>(ctx, p, peer, io);   \
  }
#define SYMM_PROBE_SCOPES(op, type, order)                                                 \
  SYMM_PROBE(op, type, order, block)                                                       \
  SYMM_PROBE(op, type, order, device)                                                      \
  SYMM_PROBE(op, type, order, system)
#define SYMM_PROBE_RMW(op, type)                                                           \
  SYMM_PROBE_SCOPES(op, type, relaxed)                                                     \
  SYMM_PROBE_SCOPES(op, type, acquire)                                                     \
  SYMM_PROBE_SCOPES(op, type, release)                                                     \
  SYMM_PROBE_SCOPES(op, type, acq_rel)
#define SYMM_PROBE_LOAD(op, type)                                                          \
  SYMM_PROBE_SCOPES(op, type, relaxed)                                                     \
  SYMM_PROBE_SCOPES(op, type, acquire)
#define SYMM_PROBE_STORE(op, type)                                                         \
  SYMM_PROBE_SCOPES(op, type, relaxed)                                                     \
  SYMM_PROBE_SCOPES(op, type, release)

SYMM_RMW_PAIRS(SYMM_PROBE_RMW)
SYMM_LOAD_PAIRS(SYMM_PROBE_LOAD)
SYMM_STORE_PAIRS(SYMM_PROBE_STORE)

// ---- data movement: cache hints, 16-byte vectors, cooperative ranges and tiles ----

#define SYMM_PROBE_LOAD_HINT(hint)                                                         \
  extern "C" __global__ void probe_load_##hint(Context ctx, const u32* p, int peer,        \
                                               u32* out) {                                 \
    *out = load<LoadCache::hint>(ctx, p, peer);                                            \
  }                                                                                        \
  extern "C" __global__ void probe_load_vec16_##hint(Context ctx, const Vec16<f32>* p,     \
                                                     int peer, Vec16<f32>* out) {          \
    *out = load<LoadCache::hint>(ctx, p, peer);                                            \
  }
SYMM_PROBE_LOAD_HINT(normal)
SYMM_PROBE_LOAD_HINT(l2_only)
SYMM_PROBE_LOAD_HINT(streaming)
SYMM_PROBE_LOAD_HINT(refetch)
SYMM_PROBE_LOAD_HINT(volatile_)

#define SYMM_PROBE_STORE_HINT(hint)                                                        \
  extern "C" __global__ void probe_store_##hint(Context ctx, u32* p, int peer,             \
                                                const u32* in) {                           \
    store<StoreCache::hint>(ctx, p, peer, *in);                                            \
  }                                                                                        \
  extern "C" __global__ void probe_store_vec16_##hint(Context ctx, Vec16<bf16>* p,         \
                                                      int peer, const Vec16<bf16>* in) {   \
    store<StoreCache::hint>(ctx, p, peer, *in);                                            \
  }
SYMM_PROBE_STORE_HINT(normal)
SYMM_PROBE_STORE_HINT(l2_only)
SYMM_PROBE_STORE_HINT(streaming)
SYMM_PROBE_STORE_HINT(write_through)

extern "C" __global__ void probe_put_range_block(Context ctx, f32* dst, const f32* src,
                                                 std::int64_t count, int peer) {
  put_range(cooperative_groups::this_thread_block(), ctx, dst, src, count, peer);
}

extern "C" __global__ void probe_get_tile_warp(Context ctx, bf16* dst, const bf16* src,
                                               std::int64_t rows, std::int64_t cols,
                                               int peer) {
  const auto warp = cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block());
  get_tile<LoadCache::l2_only>(warp, ctx, dst, 64, src, 4096, rows, cols, peer);
}

// ---- flags and barriers ----

extern "C" __global__ void probe_signal_set(Context ctx, flag_t* flag, int peer, flag_t v) {
  signal_set(ctx, flag, peer, v);
}

extern "C" __global__ void probe_signal_add(Context ctx, flag_t* flag, int peer, flag_t v) {
  signal_add(ctx, flag, peer, v);
}

extern "C" __global__ void probe_signal_add_relaxed_device(Context ctx, flag_t* flag,
                                                           int peer, flag_t v) {
  signal_add<cuda::memory_order_relaxed, cuda::thread_scope_device>(ctx, flag, peer, v);
}

extern "C" __global__ void probe_wait_at_least(Context ctx, const flag_t* flag, flag_t v) {
  wait_at_least(ctx, flag, v);
}

extern "C" __global__ void probe_wait_equal_relaxed(Context ctx, const flag_t* flag,
                                                    flag_t v) {
  wait_equal<cuda::memory_order_relaxed>(ctx, flag, v);
}

extern "C" __global__ void probe_wait_at_least_device(Context ctx, const flag_t* flag,
                                                      flag_t v) {
  wait_at_least<cuda::memory_order_acquire, cuda::thread_scope_device>(ctx, flag, v);
}

extern "C" __global__ void probe_barrier_block(Context ctx, flag_t* state) {
  RankBarrier(state).sync_block(ctx);
}

extern "C" __global__ void probe_barrier_grid(Context ctx, flag_t* state) {
  RankBarrier(state).sync_grid(ctx);
}
