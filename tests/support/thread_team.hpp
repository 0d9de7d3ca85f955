#pragma once
// An in-process Team for cpu tests: ranks are threads meeting at a std::barrier, so
// collective code (cross-rank summaries, collective setup steps) runs without sockets.
#include <barrier>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "symm/common/error.hpp"
#include "symm/host/team.hpp"

namespace symm::testing {

class ThreadTeam final : public Team {
 public:
  struct Hub {
    explicit Hub(int world) : world(world), sync(world), slots(world) {}
    int world;
    std::barrier<> sync;
    std::vector<std::vector<std::byte>> slots;
  };

  ThreadTeam(Hub& hub, int rank) : hub_(hub), rank_(rank) {}

  int rank() const override { return rank_; }
  int world() const override { return hub_.world; }
  void barrier() override { hub_.sync.arrive_and_wait(); }

  void broadcast(std::span<std::byte> data, int root) override {
    if (rank_ == root) hub_.slots[root].assign(data.begin(), data.end());
    barrier();
    std::memcpy(data.data(), hub_.slots[root].data(), data.size());
    barrier();  // nobody overwrites the slot before everyone has read it
  }

  std::vector<std::byte> all_gather(std::span<const std::byte> mine) override {
    hub_.slots[rank_].assign(mine.begin(), mine.end());
    barrier();
    std::vector<std::byte> all;
    for (const auto& slot : hub_.slots) all.insert(all.end(), slot.begin(), slot.end());
    barrier();
    return all;
  }

  std::vector<UniqueFd> all_gather_fds(int) override {
    throw Error("ThreadTeam: file descriptors are not passed between threads");
  }
 private:
  Hub& hub_;
  int rank_;
};

// Runs body(team) on `world` threads, one per rank; returns each rank's exception
// message ("" when it returned normally).
inline std::vector<std::string> run_ranks(int world, const std::function<void(Team&)>& body) {
  ThreadTeam::Hub hub(world);
  std::vector<std::string> errors(world);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      ThreadTeam team(hub, r);
      try {
        body(team);
      } catch (const std::exception& e) {
        errors[r] = e.what();
        if (errors[r].empty()) errors[r] = "(exception without a message)";
      }
    });
  }
  for (auto& thread : threads) thread.join();
  return errors;
}

}  // namespace symm::testing
