#pragma once
// Whether a kernel on a GPU can reach a pointer the caller passed, asked before launch: a
// kernel that reads ordinary host memory (malloc, new, std::vector, the stack) faults with
// cudaErrorIllegalAddress, which ends the context and loses the process's other work.
//
//   if (auto why = symm::unreachable_from_device(a, device, "symm gemm: A"); !why.empty())
//     throw symm::Error(why);
#include <string>
#include <string_view>

namespace symm {

// Empty when kernels on `device` can read and write `pointer`: device memory (cudaMalloc,
// the symmetric heap, VMM mappings), managed memory, pinned or registered host memory, and
// any host memory on GPUs with pageable memory access (cudaDevAttrPageableMemoryAccess,
// e.g. Grace Hopper). Otherwise one line that starts with `what` and says what to do (also
// when CUDA cannot say: a failure of cudaPointerGetAttributes is returned, never thrown).
std::string unreachable_from_device(const void* pointer, int device, std::string_view what);

}  // namespace symm
