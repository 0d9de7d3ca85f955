#include "symm/host/heap_transport.hpp"

#include <array>
#include <utility>

namespace symm {
namespace {

constexpr std::array<std::pair<HeapTransport, std::string_view>, 3> kTransports = {{
    {HeapTransport::automatic, "auto"},
    {HeapTransport::vmm, "vmm"},
    {HeapTransport::ipc, "ipc"},
}};

}  // namespace

std::string_view transport_name(HeapTransport transport) {
  for (const auto& [value, name] : kTransports) {
    if (value == transport) return name;
  }
  return "?";
}

std::optional<HeapTransport> find_transport(std::string_view name) {
  for (const auto& [value, known] : kTransports) {
    if (known == name) return value;
  }
  return std::nullopt;
}

}  // namespace symm
