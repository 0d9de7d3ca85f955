// Trace buffers of --trace_tiles: one allocation, zeroed before each traced run, read
// back into events with every warpgroup's compute spans laid end to end.
#include "tile_trace.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "symm/gemm/config.hpp"
#include "symm/host/cuda_check.hpp"

namespace symm::ops::detail {
namespace {

template <class T>
std::vector<T> to_host(const T* device, std::size_t count) {
  std::vector<T> host(count);
  check_cuda(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost),
             "cudaMemcpy(tile trace)");
  return host;
}

}  // namespace

TraceBuffers::TraceBuffers(int tiles, int blocks) : tiles_(tiles), blocks_(blocks) {
  const std::size_t spans = std::size_t(2 * tiles + blocks) * kTraceLanes;
  bytes_ = spans * sizeof(TraceSpan) + sizeof(std::uint64_t);
  check_cuda(cudaMalloc(&memory_, bytes_), "cudaMalloc(tile trace)");
  auto* span = static_cast<TraceSpan*>(memory_);
  trace_.compute = span;
  trace_.push = span + std::size_t(tiles) * kTraceLanes;
  trace_.workers = span + std::size_t(2 * tiles) * kTraceLanes;
  trace_.barrier_exit = reinterpret_cast<std::uint64_t*>(span + spans);
}

TraceBuffers::~TraceBuffers() { warn_on_cuda_error(cudaFree(memory_), "cudaFree(tile trace)"); }

void TraceBuffers::reset(cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(memory_, 0, bytes_, stream), "cudaMemsetAsync(tile trace)");
}

std::vector<TileEvent> TraceBuffers::events(bool drains) const {
  const std::size_t slots = std::size_t(tiles_) * kTraceLanes;
  const auto compute = to_host(trace_.compute, slots);
  const auto push = to_host(trace_.push, slots);
  const auto workers = to_host(trace_.workers, std::size_t(blocks_) * kTraceLanes);
  const std::uint64_t zero = to_host(trace_.barrier_exit, 1)[0];
  const auto us = [zero](std::uint64_t t) { return (double(t) - double(zero)) / 1000.0; };

  std::vector<TileEvent> events;
  // Each warpgroup computes its tiles back to back: a tile's span starts where the
  // warpgroup's previous tile ended (its first where the warpgroup started).
  std::map<std::pair<int, int>, std::vector<std::pair<std::uint64_t, int>>> by_worker;
  for (std::size_t i = 0; i < slots; ++i)
    if (compute[i].end != 0) by_worker[{compute[i].block, compute[i].lane}].push_back({compute[i].end, int(i / kTraceLanes)});
  for (auto& [worker, tiles] : by_worker) {
    std::sort(tiles.begin(), tiles.end());
    std::uint64_t begin = workers[std::size_t(worker.first) * kTraceLanes + worker.second].begin;
    for (const auto& [end, tile] : tiles) {
      events.push_back({TileEvent::Kind::compute, tile, worker.first, worker.second, us(begin), us(end)});
      begin = end;
    }
    const TraceSpan& w = workers[std::size_t(worker.first) * kTraceLanes + worker.second];
    if (drains && w.end != 0)
      events.push_back({TileEvent::Kind::drain, -1, worker.first, worker.second, us(begin), us(w.end)});
  }
  for (std::size_t i = 0; i < slots; ++i)
    if (push[i].end != 0)
      events.push_back({TileEvent::Kind::push, int(i / kTraceLanes), push[i].block, push[i].lane,
                        us(push[i].begin), us(push[i].end)});
  return events;
}

}  // namespace symm::ops::detail
