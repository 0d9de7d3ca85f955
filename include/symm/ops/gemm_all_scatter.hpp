#pragma once
// GEMM + all-scatter: every rank holds A (M x K) and its column shard of B, computes its
// shard of C (M x N / world) and stores it into the same columns of every rank's C, so
// that every rank ends with the whole C (M x N) on its symmetric heap.
//
//   symm::ops::GemmAllScatter op(rt, shape, options);   // collective: flags on the heap
//   op.run(a, b_shard, c, stream);                       // stream-ordered; on return of
//                                                        // the stream every rank has C
//
// Variants (docs/gemm-all-scatter.md says how each works and what it costs):
//   tma_push          ours: each tile's epilogue TMA-stores it from shared memory into the
//                     local C and every peer's C (one tensor map per peer); no comm SMs,
//                     no re-read of C; the stores drain while the next tile is computed.
//                     Runs every tile and cluster of the GEMM: the plan our GEMM alone runs.
//   wg_specialization Iris 10: one persistent kernel; gemm_sms blocks compute tiles and
//                     release a per-tile flag, the other num_sms - gemm_sms blocks wait
//                     for each tile and copy it to every peer, joined by each GEMM block
//                     once its own tiles are done (the copiers claim tiles in turn).
//   fused_sequential  Iris 07: each GEMM block copies its finished tile to every peer.
//   producer_consumer Iris 11: GEMM kernel and scatter kernel (comm_sms blocks) on two
//                     streams, joined back into the caller's stream; the GEMM blocks
//                     join the copy as in wg_specialization.
//   bulk_synchronous  Iris 12: GEMM, then a scatter kernel on every SM.
// Each ends with a stream-ordered cross-rank barrier on heap flags (StreamBarrier), so
// the caller's stream passes it only once every rank has all of C.
//
// Runs of one op must follow each other in stream order (one stream, or the next run's
// stream waiting on an event recorded after the last): they share the op's epoch, tile
// claims and split-tile counters, which each run takes as the last one left them. Ops
// meant to run at once need an op each.
//
// The barrier orders the end of a run, not the start of the next: a rank's next run
// pushes into its peers' C as soon as its tiles are done, whatever those peers' streams
// are doing. So before any rank runs again into the same C, every rank must be done
// reading it: put a cross-rank barrier between the last use of C and the next run
// (Runtime::barrier(stream) on every rank), or alternate two C buffers.
//
// Flags carry epochs held in device memory and advanced by the kernels themselves, so
// nothing is zeroed between runs and a captured CUDA graph replays correctly. Every
// device-side wait is bounded by SYMM_WAIT_TIMEOUT_MS; a wait that runs out writes a
// record to host-mapped memory (rank, block, tile, flag, value seen and expected; for the
// GEMM blocks' own waits, the pipeline stage) and traps; failure_report() reads it after
// the failed synchronisation.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symm/gemm/config.hpp"
#include "symm/gemm/plan.hpp"
#include "symm/gemm/types.hpp"

namespace symm {
class Runtime;
}

namespace symm::ops {

enum class ScatterVariant : std::uint8_t {
  tma_push,
  wg_specialization,
  fused_sequential,
  producer_consumer,
  bulk_synchronous,
};
inline constexpr ScatterVariant kScatterVariants[] = {
    ScatterVariant::tma_push, ScatterVariant::wg_specialization, ScatterVariant::fused_sequential,
    ScatterVariant::producer_consumer, ScatterVariant::bulk_synchronous};

std::string_view to_string(ScatterVariant v);
std::optional<ScatterVariant> parse_variant(std::string_view name);

// The most ranks (and so tensor maps per kernel) the fused kernels take.
inline constexpr int kMaxWorld = 8;

// The problem, in global sizes: C is M x N, each rank's B shard K x N/world (BLayout::kn)
// or N/world x K (BLayout::nk).
struct AllScatterShape {
  std::int64_t m = 0, n = 0, k = 0;
  gemm::DType dtype = gemm::DType::bf16;  // A, B and C: bf16 or fp16
  gemm::BLayout b_layout = gemm::BLayout::kn;
};

struct GemmAllScatterOptions {
  std::optional<ScatterVariant> variant;     // none: the plan's choice (auto)
  std::optional<gemm::KernelConfig> config;  // tile shape and stages; none: the heuristic's
  // Blocks computing tiles; 0: the variant's default (wg_specialization: Iris's largest
  // power of two below num_sms, lowered where the comm blocks left would copy C to peers
  // more slowly than the GEMM computes it; with loopback peers, all but the 1-8 comm
  // blocks the GEMM's waves spare).
  int gemm_sms = 0;
  int num_sms = 0;    // wg_specialization: blocks of the whole grid; 0: every SM
  // producer_consumer: blocks of the scatter kernel; 0: Iris's 8, or as many as copy C
  // to peers while the GEMM computes it (within the SMs a given gemm_sms leaves); with
  // loopback peers, the 1-8 the GEMM's waves spare.
  int comm_sms = 0;
  int gsize_m = 8;    // tile rows per group of the grouped tile order
  // The GEMM's last wave split (gemm::GemmOptions::split_tail): -1 where its heuristic
  // predicts a gain, 0 never, 1 wherever a part-empty wave follows a full one. A split
  // tile is published by the unit that finishes it; fused_sequential never splits.
  int split_tail = -1;
  // Loopback proxy on one GPU (world must be 1): this many extra C buffers on this GPU
  // stand for peers, so the push path's cost on the SMs can be measured without NVLink.
  int loopback_peers = 0;
  bool verbose = false;  // say which variant and configuration run, and why (stderr)
  bool trace_tiles = false;  // record each run's tile timeline (tile_events())
};

// One span of a traced run's tile timeline, on this rank.
struct TileEvent {
  enum class Kind : std::uint8_t {
    compute,  // a consumer warpgroup computing its part of a tile, until its stores were issued
    push,     // copying a tile to every peer (a copier block, or the warpgroup in fused_sequential)
    drain,    // tma_push: from a warpgroup's last tile until its pushes had all completed
  };
  Kind kind = Kind::compute;
  int tile = -1;  // -1 for drain
  int block = 0;
  int lane = 0;  // consumer warpgroup, or -1 for a copier (comm, scatter or joined GEMM block)
  // Microseconds relative to the moment the run's stream barrier let this rank go (every
  // rank leaves it within microseconds of the others): negative, and aligned across ranks.
  double begin_us = 0, end_us = 0;
};
std::string_view to_string(TileEvent::Kind kind);

// What run() will do (and why), decided before any launch.
struct AllScatterPlan {
  ScatterVariant variant = ScatterVariant::tma_push;
  gemm::KernelConfig config;
  int gemm_sms = 0;   // GEMM blocks (tiles computed by these)
  int comm_sms = 0;   // blocks only pushing tiles (0 where the GEMM blocks push themselves)
  int gsize_m = 8;
  int tiles = 0;      // output tiles of the local shard (in clusters one per block, some past M or N)
  int peers = 0;      // C copies written besides the local one (world - 1, or loopback)
  gemm::Plan gemm;    // the local shard's GEMM
  std::string reason;
};

// Empty when `shape` can be scattered over `world` ranks, else what is wrong and what to
// change (N not divisible by world, shard columns not a multiple of 8, ...).
std::string validate(const AllScatterShape& shape, int world);
// Empty when the options are consistent with each other and with `sm_count`, else why not
// (naming the option).
std::string validate(const GemmAllScatterOptions& options, int world, int sm_count);
// The plan for `shape` on `world` ranks of a GPU with these limits (SMs, shared memory,
// clusters that fit: gemm::query_device_limits); throws symm::Error with the reason when
// the shape or options cannot run (including co-residency: more blocks than can be
// resident at once). Pure host logic: the cpu tier tests it.
AllScatterPlan make_plan(const AllScatterShape& shape, const GemmAllScatterOptions& options,
                         int world, const gemm::DeviceLimits& limits);
// The same on an H200-like GPU with `sm_count` SMs.
AllScatterPlan make_plan(const AllScatterShape& shape, const GemmAllScatterOptions& options,
                         int world, int sm_count);
std::string describe(const AllScatterShape& shape, const AllScatterPlan& plan);

class GemmAllScatter {
 public:
  // Collective: every rank constructs it with the same shape and options. Plans, checks
  // that every rank made the same plan (else every rank throws symm::Error naming the
  // first difference: a shape term, or a plan term where GPUs or options differ), then
  // allocates the tile flags, epochs and arrival flags on the heap (and loopback buffers);
  // the first run checks co-residency of the plan's grid with the occupancy API.
  GemmAllScatter(Runtime& rt, const AllScatterShape& shape, GemmAllScatterOptions options = {});
  ~GemmAllScatter();
  GemmAllScatter(const GemmAllScatter&) = delete;
  GemmAllScatter& operator=(const GemmAllScatter&) = delete;

  const AllScatterPlan& plan() const;
  const AllScatterShape& shape() const;

  // a: M x K (lda = K); b_shard: this rank's shard in shape().b_layout, dense; c: M x N
  // (ldc = N) on the symmetric heap at the same offset on every rank. Enqueues on
  // `stream` and returns; the stream passes the final barrier only once every rank's C is
  // complete (and every rank must be done with c before any rank runs into it again:
  // above). The first run into each c is collective on the host: every rank checks that
  // every rank's c lies on its heap at the same offset, and all throw if one does not.
  // Throws symm::Error before any launch if c is not on the heap (or not at the peers'
  // offset) or overlaps a or b_shard, and with the failure report appended when a CUDA
  // error it sees follows a timed-out wait. A run that fails after enqueueing part of
  // its work leaves the op out of step with its peers: every later run() refuses, saying
  // so. bulk_synchronous's library GEMM allocates its scratch at its first run: run once
  // before capturing it.
  void run(const void* a, const void* b_shard, void* c, cudaStream_t stream);

  // The loopback peers' C buffers (empty without loopback_peers).
  const std::vector<void*>& loopback_buffers() const;

  // The last run's tile timeline (with trace_tiles; synchronise its stream first), empty
  // otherwise.
  std::vector<TileEvent> tile_events() const;

  // After a CUDA error from a synchronisation: the records timed-out device waits left
  // ("rank 1, block 130, tile 17: flag ... saw 4, expected >= 5 after 10000 ms", and a
  // line for the GEMM blocks' waits), or empty when none did.
  std::string failure_report() const;

 private:
  void enqueue(const void* a, const void* b_shard, void* c, cudaStream_t stream);

  struct State;
  std::unique_ptr<State> state_;
};

// A stream-ordered cross-rank barrier on heap flags: when the stream passes wait(), the
// work every rank enqueued before its wait() has completed (including copies into this
// rank's heap). Epochs live in device memory (graph replay safe); waits are bounded.
class StreamBarrier {
 public:
  explicit StreamBarrier(Runtime& rt);  // collective: allocates world flags on the heap
  ~StreamBarrier();
  StreamBarrier(const StreamBarrier&) = delete;
  StreamBarrier& operator=(const StreamBarrier&) = delete;
  // exit_time_ns (device memory, nullable): where the barrier writes the global timer
  // when it lets this rank go (the time zero of a traced run).
  void wait(cudaStream_t stream, std::uint64_t* exit_time_ns = nullptr);
  // Waits completed, in device memory: kernels enqueued between two wait()s take it + 1
  // as their epoch (it changes only inside wait()'s kernel).
  const std::uint64_t* device_epoch() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace symm::ops
