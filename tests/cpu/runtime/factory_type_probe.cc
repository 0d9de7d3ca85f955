// Compiled (never run) by CTest: each SYMM_PROBE_* must fail to compile with the
// factory's static_assert message; SYMM_PROBE_VALID must compile.
#include <cstdint>

#include "symm/host/tensor.hpp"

void probe(symm::Heap& heap, cudaStream_t stream) {
#if defined(SYMM_PROBE_RANDN_ON_INTEGERS)
  symm::randn<std::int32_t>(heap, {4}, 1, stream);
#elif defined(SYMM_PROBE_RAND_ON_INTEGERS)
  symm::rand<std::int8_t>(heap, {4}, 1, stream);
#elif defined(SYMM_PROBE_RANDINT_ON_FLOATS)
  symm::randint<symm::bf16>(heap, {4}, 0, 10, 1, stream);
#elif defined(SYMM_PROBE_VALID)
  symm::randn<symm::bf16>(heap, {4}, 1, stream);
  symm::rand<double>(heap, {4}, 1, stream);
  symm::randint<std::int64_t>(heap, {4}, 0, 10, 1, stream);
#endif
}
