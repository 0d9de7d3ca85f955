#pragma once
// Every rank's value of a plain struct, through the bootstrap Team (no GPU involved).
#include <cstddef>
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

// The lowest rank whose value in `all` (gather's result) differs from `value`, or -1: the
// rank a refusal names when ranks must agree.
template <class T>
int first_rank_unlike(const std::vector<T>& all, const T& value) {
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!(all[r] == value)) return int(r);
  return -1;
}

}  // namespace symm
