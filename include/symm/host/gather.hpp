#pragma once
// Every rank's value of a plain struct, through the bootstrap Team (no GPU involved).
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "symm/host/team.hpp"

namespace symm {

// Collective: every rank's `mine`, by rank.
template <class T>
std::vector<T> gather(Team& team, const T& mine) {
  static_assert(std::is_trivially_copyable_v<T>, "gather copies bytes");
  const auto bytes = team.all_gather(std::as_bytes(std::span(&mine, 1)));
  std::vector<T> all(team.world());
  std::memcpy(all.data(), bytes.data(), bytes.size());
  return all;
}

}  // namespace symm
