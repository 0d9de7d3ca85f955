#pragma once
// The push role of wg_specialization's comm blocks and of the scatter kernel
// (producer_consumer, bulk_synchronous), which the GEMM blocks of the flag variants join
// once their own tiles are done: a block claims tiles in the order the GEMM finishes them
// (params.hpp TileClaims) and moves each through shared memory with the TMA, in pieces of
// the tile's width (params.hpp PushMaps). One thread loads pieces of the local C into a
// ring of slots as their tiles are published; a thread of another warp stores each landed
// piece to every peer and frees its slot once the stores have read it.
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "params.hpp"
#include "symm/device/ptx/gemm_mbarrier.cuh"
#include "symm/device/wait_record.cuh"
#include "symm/gemm/config.hpp"
#include "tile_flags.cuh"
#include "trace.cuh"

namespace symm::ops::detail {

// The rows and columns of tile `tile` inside the shard (clipped at its edges).
struct TileRegion {
  int row0, rows, col0, cols;
};
__device__ inline TileRegion tile_region(const PushWork& w, int tile) {
  int tm = 0, tn = 0;
  w.sched.tile_coords(tile, tm, tn);
  const int row0 = tm * w.blk_m, col0 = tn * w.blk_n;
  const int rows = w.targets.m - row0 < w.blk_m ? w.targets.m - row0 : w.blk_m;
  const int cols = w.targets.n_shard - col0 < w.blk_n ? w.targets.n_shard - col0 : w.blk_n;
  return {row0, rows > 0 ? rows : 0, col0, cols > 0 ? cols : 0};
}

// The next tile for this copier (relaxed: the tile's flags order its data).
__device__ inline int claim_tile(const TileClaims& c) {
  return int(cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*c.next).fetch_add(1u, cuda::memory_order_relaxed));
}

// After this copier's last claim. acq_rel: the copier that retires last has seen every
// other copier's claims happen before its reset, so no claim of this launch lands after it.
__device__ inline void retire_claims(const TileClaims& c) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> retired(*c.retired);
  if (retired.fetch_add(1u, cuda::memory_order_acq_rel) + 1 == unsigned(c.copiers)) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*c.next).store(0u, cuda::memory_order_relaxed);
    retired.store(0u, cuda::memory_order_relaxed);
  }
}

// Returns once every consumer warpgroup has published `tile` in this launch: relaxed
// polls of its flags, all issued before any is compared (one round trip), and one acquire
// fence where all are set; else bounded waits on each (they end the kernel with a
// diagnostic).
__device__ inline void wait_for_tile(const PushWork& w, int tile, std::uint64_t epoch) {
  std::uint64_t seen[gemm::kConsumers];
#pragma unroll
  for (int g = 0; g < gemm::kConsumers; ++g)
    seen[g] = cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(w.tile_flags.flags[tile * gemm::kConsumers + g])
                  .load(cuda::memory_order_relaxed);
  bool all = true;
#pragma unroll
  for (int g = 0; g < gemm::kConsumers; ++g) all = all && seen[g] >= epoch;
  if (all) {
    device::fence<cuda::memory_order_acquire, cuda::thread_scope_device>();
  } else {
    for (int g = 0; g < gemm::kConsumers; ++g)
      device::wait_at_least_recorded<cuda::thread_scope_device>(
          w.wait, &w.tile_flags.flags[tile * gemm::kConsumers + g], epoch, tile);
  }
  cuda::ptx::fence_proxy_async(cuda::ptx::space_global);  // the acquire, for the TMA's reads
}

// What the loader tells the storer about the piece in a slot: where it goes (TMA
// coordinates: column, row), its tile, and whether it is the tile's last; tile < 0: no
// more pieces.
struct PieceTicket {
  std::int32_t col, row, tile, last;
};

// The ring of shared-memory slots between the two threads: `full` completes when a
// slot's load has landed (or its end ticket is written), `empty` when the stores from it
// have read it. A slot's k-th use waits for phase k of full (the storer) and k - 1 of
// empty (the loader; for k = 0 the wait for the parity before a fresh barrier's first
// phase passes at once).
struct PushRing {
  std::uint8_t* slots;
  std::uint64_t* full;
  std::uint64_t* empty;
  PieceTicket* tickets;
  int size, piece_bytes;
  int copier;  // the block's id in tile traces (GEMM and scatter blocks of a launch differ)
  // Budget of a slot wait: longer than the loader's wait for one tile, which may spend a
  // flag wait's budget on each warpgroup's flag in turn (each with its own clock), so that
  // a GEMM that never publishes a tile is reported by the loader's flag wait, not as a
  // slot that never filled (push_tiles: kSlotWaitBudgets).
  std::uint64_t budget_ns;
};

// A slot wait's budget in flag waits' budgets: one per consumer warpgroup's flag of a
// tile, and one more for the load.
inline constexpr std::uint64_t kSlotWaitBudgets = gemm::kConsumers + 1;

// Where a thread is in the ring: the slot of its next use and that lap's phase parity
// (gemm::RingPos, for a ring whose size is known only at run time).
struct RingCursor {
  int slot = 0;
  std::uint32_t parity = 0;
  __device__ void advance(int size) {
    if (++slot == size) {
      slot = 0;
      parity ^= 1u;
    }
  }
};

// The loader: claims tiles, waits for each one's flags (bounded), loads its pieces into
// free slots with a ticket each, and ends with an end ticket. The next claim is in flight
// while a tile is waited for and loaded.
__device__ inline void load_pieces(const PushWork& w, const PushRing& ring, int tile) {
  const bool wait = w.tile_flags.flags != nullptr;
  const std::uint64_t epoch = wait ? this_launch_epoch(w.tile_flags) : 0;
  const int tiles = w.sched.num_tiles();
  RingCursor at;
  // Waits until the cursor's slot is free, for a piece of `for_tile` (bounded, diagnosed).
  const auto take_slot = [&](int for_tile) {
    std::uint64_t waited = 0;
    if (!ptx::mbarrier_wait_bounded(&ring.empty[at.slot], at.parity ^ 1u, ring.budget_ns, waited))
      device::record_wait_failure(w.wait, nullptr, for_tile, 0, 1, waited);
  };
  while (tile < tiles) {
    const int next = claim_tile(w.claims);
    if (wait) wait_for_tile(w, tile, epoch);
    if (w.trace.push) w.trace.push[tile * kTraceLanes].begin = trace_clock();
    const TileRegion r = tile_region(w, tile);
    const int pieces = (r.rows + w.maps.piece_rows - 1) / w.maps.piece_rows;
    for (int piece = 0; piece < pieces; ++piece) {
      take_slot(tile);
      const std::int32_t coords[2] = {r.col0, r.row0 + piece * w.maps.piece_rows};
      ring.tickets[at.slot] = {coords[0], coords[1], tile, piece == pieces - 1};
      ptx::mbarrier_arrive_expect_tx(&ring.full[at.slot], std::uint32_t(ring.piece_bytes));
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                      ring.slots + at.slot * ring.piece_bytes, &w.maps.local, coords,
                                      &ring.full[at.slot]);
      at.advance(ring.size);
    }
    tile = next;
  }
  retire_claims(w.claims);
  take_slot(tiles);
  ring.tickets[at.slot] = {0, 0, -1, 1};
  ptx::mbarrier_arrive(&ring.full[at.slot]);
}

// The storer: stores each landed piece to every target and frees the slot of the piece
// before it once those stores have read it (the newest store group may still read).
__device__ inline void store_pieces(const PushWork& w, const PushRing& ring) {
  RingCursor at;
  int previous = -1;
  int tile = -1;  // of the last piece stored: a failed wait is for its next piece
  for (;;) {
    std::uint64_t waited = 0;
    if (!ptx::mbarrier_wait_bounded(&ring.full[at.slot], at.parity, ring.budget_ns, waited))
      device::record_wait_failure(w.wait, nullptr, tile, 0, 1, waited);
    const PieceTicket ticket = ring.tickets[at.slot];
    if (ticket.tile < 0) break;
    tile = ticket.tile;
    const std::int32_t coords[2] = {ticket.col, ticket.row};
    for (int i = 0; i < w.targets.peer_count; ++i)
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, &w.maps.peers[i],
                                      coords, ring.slots + at.slot * ring.piece_bytes);
    cuda::ptx::cp_async_bulk_commit_group();  // one group per piece
    if (previous >= 0) {
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<1>{});
      ptx::mbarrier_arrive(&ring.empty[previous]);
    }
    previous = at.slot;
    at.advance(ring.size);
    if (w.trace.push && ticket.last) {
      TraceSpan& span = w.trace.push[ticket.tile * kTraceLanes];
      span.end = trace_clock();
      span.block = ring.copier;
      span.lane = -1;
    }
  }
  // The peers read C after this grid completes (the stream barrier): the stores must have
  // landed, and be ordered before the generic proxy's release that follows.
  cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});
  cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
}

// This block, a copier, claims tiles until none is left, waits for each (while the GEMM
// still runs) and copies it to every target through `smem` (`smem_bytes`, enough for
// kPushMinSlots pieces: push_piece_rows chose the pieces for it). Every thread of the
// block calls it; thread `first_thread` loads and the first thread of the warp after it
// stores: one thread doing both issued ~270 instructions per piece at one per 6.5 cycles,
// and that, not the TMA, bounded its copy (ncu, bench/results/all-scatter/2026-12-04-push-walk).
// `copier`: the block's id in tile traces.
inline constexpr int kPushThreads = 64;
__device__ inline void push_tiles(const PushWork& w, std::uint8_t* smem, int smem_bytes, int first_thread,
                                  int copier) {
  const int loader = first_thread, storer = first_thread + 32;
  // The first claim, in flight while the ring is set up.
  const int first = int(threadIdx.x) == loader ? claim_tile(w.claims) : 0;
  const std::uint32_t misaligned = ptx::smem_addr(smem) % kPushSmemAlign;
  PushRing ring;
  ring.slots = smem + (misaligned ? kPushSmemAlign - misaligned : 0);
  ring.piece_bytes = w.maps.piece_rows * w.blk_n * w.targets.elem_bytes;  // a whole box, also where clipped
  ring.size = push_slots(ring.piece_bytes, smem_bytes);
  ring.full = reinterpret_cast<std::uint64_t*>(ring.slots + ring.size * ring.piece_bytes);
  ring.empty = ring.full + ring.size;
  ring.tickets = reinterpret_cast<PieceTicket*>(ring.empty + ring.size);
  ring.copier = copier;
  ring.budget_ns = kSlotWaitBudgets * w.wait.budget_ns;
  if (int(threadIdx.x) == loader) {
    for (int i = 0; i < 2 * ring.size; ++i) cuda::ptx::mbarrier_init(&ring.full[i], 1);  // full, then empty
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (int(threadIdx.x) == loader) load_pieces(w, ring, first);
  if (int(threadIdx.x) == storer) store_pieces(w, ring);
}

}  // namespace symm::ops::detail
