// Every atomic operation x type x memory order x scope, checked by final values.
//
// n elements per rank, m contributors per element per rank. With system scope every
// rank applies its contributions to every rank's elements; with device scope the
// threads of one rank (spread over blocks) update the local elements; with block scope
// the threads of one block do. Operands are chosen so that the final value depends on
// every contribution: add/sub/cas-increment count them, and/or/xor set distinct bits,
// min/max fold distinct values, xchg must conserve every token (the values returned
// plus the final value are exactly the initial value plus the tokens put in).
#include <cuda/atomic>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "rank_bodies.hpp"
#include "harness.hpp"
#include "symm/device/atomic.cuh"
#include "symm/host/cuda_check.hpp"
#include "symm/host/log.hpp"
#include "type_lists.cuh"

namespace symm::test {
namespace {

using device::Context;

enum class Op { add, sub, bit_and, bit_or, bit_xor, min, max, xchg, cas };
constexpr Op kOps[] = {Op::add, Op::sub,  Op::bit_and, Op::bit_or, Op::bit_xor,
                       Op::min, Op::max, Op::xchg,    Op::cas};
const char* name_of(Op op) {
  constexpr const char* names[] = {"add", "sub", "and", "or", "xor", "min", "max", "xchg", "cas"};
  return names[static_cast<int>(op)];
}

template <Op op, class T>
constexpr bool supported() {
  using namespace device;
  if constexpr (op == Op::add || op == Op::sub) return AtomicArithmetic<T>;
  if constexpr (op == Op::bit_and || op == Op::bit_or || op == Op::bit_xor) return AtomicInteger<T>;
  if constexpr (op == Op::min || op == Op::max || op == Op::xchg) {
    return AtomicInteger<T> || AtomicFloat<T>;
  }
  return AtomicWord<T>;  // cas
}

struct Layout {
  int n = 0;  // elements per rank
  int m = 0;  // contributors per element per rank
};

// The operand contributor c applies to element e, as a wide integer (every type
// below holds it exactly).
SYMM_TEST_HD std::int64_t operand(Op op, bool is_unsigned, int bits, int c, int e, Layout l) {
  switch (op) {
    case Op::bit_and: return static_cast<std::int64_t>(~(std::uint64_t{1} << ((c + e) % bits)));
    case Op::bit_or:
    case Op::bit_xor: return static_cast<std::int64_t>(std::uint64_t{1} << ((c + e) % bits));
    case Op::min:
    case Op::max: return (c * 37 + e * 11) % 41 - (is_unsigned ? 0 : 20);
    case Op::xchg: return 1 + c * l.n + e;  // unique per (contributor, element)
    default: return 1;                       // add, sub, cas (increment)
  }
}

SYMM_TEST_HD std::int64_t initial(Op op, bool is_unsigned, int e, int contributors) {
  switch (op) {
    case Op::sub: return contributors + 7 + e % 5;
    case Op::bit_and: return -1;
    case Op::bit_or:
    case Op::bit_xor: return (e * 0x9E37) & 0xFFFF;
    case Op::min:
    case Op::max: return e % 7 - (is_unsigned ? 0 : 3);
    case Op::xchg: return 16'000'000 + e;  // below 2^24: exact in float, unlike any token
    default: return 3 + e % 5;
  }
}

template <class T>
SYMM_TEST_HD std::int64_t operand_of(Op op, int c, int e, Layout l) {
  return operand(op, is_unsigned_v<T>, 8 * sizeof(T), c, e, l);
}

template <Op op, cuda::memory_order O, cuda::thread_scope S, class T>
__device__ T apply(const Context& ctx, T* x, int peer, T value) {
  using namespace device;
  if constexpr (op == Op::add) return atomic_add<O, S>(ctx, x, peer, value);
  if constexpr (op == Op::sub) return atomic_sub<O, S>(ctx, x, peer, value);
  if constexpr (op == Op::bit_and) return atomic_and<O, S>(ctx, x, peer, value);
  if constexpr (op == Op::bit_or) return atomic_or<O, S>(ctx, x, peer, value);
  if constexpr (op == Op::bit_xor) return atomic_xor<O, S>(ctx, x, peer, value);
  if constexpr (op == Op::min) return atomic_min<O, S>(ctx, x, peer, value);
  if constexpr (op == Op::max) return atomic_max<O, S>(ctx, x, peer, value);
  if constexpr (op == Op::xchg) return atomic_xchg<O, S>(ctx, x, peer, value);
  if constexpr (op == Op::cas) {  // increment by compare-and-swap until it takes
    T seen = atomic_load<cuda::memory_order_relaxed, S>(ctx, x, peer);
    for (;;) {
      const T expected = seen;
      seen = atomic_cas<O, S>(ctx, x, peer, expected, from_wide<T>(to_wide(expected) + 1));
      if (same_bits(seen, expected)) return seen;
    }
  }
}

template <Op op, cuda::memory_order O, cuda::thread_scope S, class T>
__global__ void apply_all(Context ctx, T* x, T* olds, Layout l) {
  int e, k;
  if constexpr (S == cuda::thread_scope_block) {  // one block per element
    e = blockIdx.x;
    k = threadIdx.x;
  } else {  // an element's contributors spread over blocks
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= l.n * l.m) return;
    e = g % l.n;
    k = g / l.n;
  }
  const bool system = S == cuda::thread_scope_system;
  const int c = (system ? ctx.rank * l.m : 0) + k;
  for (int p = system ? 0 : ctx.rank; p < (system ? ctx.world : ctx.rank + 1); ++p) {
    const T old = apply<op, O, S>(ctx, &x[e], p, from_wide<T>(operand_of<T>(op, c, e, l)));
    olds[(p * l.n + e) * l.m + k] = old;
  }
}

// What element e must hold at the end (all but xchg, which conserve_tokens checks).
template <class T>
std::int64_t expected_final(Op op, int e, int contributors, Layout l) {
  const std::int64_t start = initial(op, is_unsigned_v<T>, e, contributors);
  std::int64_t v = start;
  for (int c = 0; c < contributors; ++c) {
    const std::int64_t x = operand_of<T>(op, c, e, l);
    switch (op) {
      case Op::add:
      case Op::cas: v += x; break;
      case Op::sub: v -= x; break;
      case Op::bit_and: v &= x; break;
      case Op::bit_or: v |= x; break;
      case Op::bit_xor: v ^= x; break;
      case Op::min: v = std::min(v, x); break;
      case Op::max: v = std::max(v, x); break;
      case Op::xchg: break;
    }
  }
  return v;
}

template <Op op, cuda::memory_order O, cuda::thread_scope S, class T>
void run_case(Runtime& rt, Failures& failures, cudaStream_t stream) {
  constexpr bool system = S == cuda::thread_scope_system;
  const Layout l{64, 8};
  const int contributors = (system ? rt.world() : 1) * l.m;
  const std::string what = std::string(name_of(op)) + "<" + order_name(O) + ", " +
                           scope_name(S) + ">(" + type_name<T>() + ")";

  std::vector<T> init(l.n);
  for (int e = 0; e < l.n; ++e) init[e] = from_wide<T>(initial(op, is_unsigned_v<T>, e, contributors));
  const std::size_t olds_count = static_cast<std::size_t>(rt.world()) * l.n * l.m;
  T* x = static_cast<T*>(rt.heap().allocate(l.n * sizeof(T)));
  T* olds = static_cast<T*>(rt.heap().allocate(olds_count * sizeof(T)));
  SYMM_CUDA_CHECK(cudaMemcpyAsync(x, init.data(), l.n * sizeof(T), cudaMemcpyHostToDevice, stream));
  rt.barrier(stream);  // every rank's x is initialised before anyone updates it

  const int blocks = S == cuda::thread_scope_block ? l.n : (l.n * l.m + 127) / 128;
  const int threads = S == cuda::thread_scope_block ? l.m : 128;
  apply_all<op, O, S><<<blocks, threads, 0, stream>>>(rt.context(), x, olds, l);
  SYMM_CUDA_CHECK(cudaGetLastError());
  rt.barrier(stream);  // every rank's updates are done

  std::vector<T> final_values(l.n), my_olds(olds_count);
  SYMM_CUDA_CHECK(cudaMemcpyAsync(final_values.data(), x, l.n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  SYMM_CUDA_CHECK(cudaMemcpyAsync(my_olds.data(), olds, olds_count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  SYMM_CUDA_CHECK(cudaStreamSynchronize(stream));

  if constexpr (op == Op::xchg) {
    // Olds of rank r's contributions to my element e, for every rank r.
    const auto everyone = gather_all(rt, my_olds);
    for (int e = 0; e < l.n; ++e) {
      std::vector<std::uint64_t> seen{bits_of(final_values[e])}, put{bits_of(init[e])};
      for (int r = 0; r < (system ? rt.world() : 1); ++r) {
        const int source = system ? r : rt.rank();
        for (int k = 0; k < l.m; ++k) {
          seen.push_back(bits_of(everyone[source][(rt.rank() * l.n + e) * l.m + k]));
          put.push_back(bits_of(from_wide<T>(operand_of<T>(op, (system ? r * l.m : 0) + k, e, l))));
        }
      }
      std::sort(seen.begin(), seen.end());
      std::sort(put.begin(), put.end());
      failures.check(seen == put, what + ": element " + std::to_string(e) +
                                      " lost or duplicated a token in the exchange chain");
    }
  } else {
    for (int e = 0; e < l.n; ++e) {
      const T want = from_wide<T>(expected_final<T>(op, e, contributors, l));
      failures.check(same_bits(final_values[e], want),
                     what + ": element " + std::to_string(e) + " is " +
                         std::to_string(to_wide(final_values[e])) + ", expected " +
                         std::to_string(to_wide(want)));
    }
  }
}

}  // namespace

int atomic_rank_body(Runtime& rt) {
  Failures failures("atomics");
  cudaStream_t stream;
  SYMM_CUDA_CHECK(cudaStreamCreate(&stream));
  int cases = 0;
  for_each_type<AllTypes>([&]<class T>() {
    for_each_value<kOps>([&]<Op op>() {
      if constexpr (supported<op, T>()) {
        for_each_rmw_order([&]<cuda::memory_order O>() {
          for_each_scope([&]<cuda::thread_scope S>() {
            const HeapMark mark = rt.heap().mark();
            run_case<op, O, S, T>(rt, failures, stream);
            rt.heap().release_to(mark);
            ++cases;
          });
        });
      }
    });
  });
  failures.check(cases >= 9 * 4 * 3, "too few atomic cases ran: " + std::to_string(cases));
  if (rt.rank() == 0) {
    log::info("atomics: " + std::to_string(cases) +
              " (operation, type, order, scope) cases checked by final values");
  }
  SYMM_CUDA_CHECK(cudaStreamDestroy(stream));
  return failures.exit_code();
}

}  // namespace symm::test
