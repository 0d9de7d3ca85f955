#pragma once
// How the symmetric heaps are shared between ranks (SYMM_HEAP_TRANSPORT,
// RuntimeOptions::transport): CUDA VMM with POSIX file descriptors, legacy CUDA IPC, or
// VMM falling back to IPC (with the reason logged) when VMM export/import fails. Apart
// from heap.hpp so that the settings layer, which runs before any CUDA call, parses it.
#include <optional>
#include <string_view>

namespace symm {

enum class HeapTransport { automatic, vmm, ipc };

std::string_view transport_name(HeapTransport transport);       // "auto", "vmm", "ipc"
std::optional<HeapTransport> find_transport(std::string_view name);  // nullopt: no such name

}  // namespace symm
