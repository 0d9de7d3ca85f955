#pragma once
// Byte counts in messages: "1.50 GiB (1610612736 bytes)".
#include <cstddef>
#include <string>

namespace symm {

std::string describe_bytes(std::size_t bytes);
// The smallest power-of-two number of GiB (at least 1) holding `bytes`, as "8GiB": a
// heap size worth suggesting in a message.
std::string suggest_size(std::size_t bytes);

}  // namespace symm
