#pragma once
// wgmma (sm_90a): a warpgroup (4 consecutive warps) multiplies A (64 x 16) by B (16 x N),
// both read from shared memory through 64-bit matrix descriptors, into N/2 fp32
// accumulators per thread. Operands are described as TMA writes them with
// CU_TENSOR_MAP_SWIZZLE_128B (64B, 32B for narrow MN-major boxes), aligned to the swizzle
// atom.
//
// Accumulator layout (PTX ISA, "wgmma .m64nNk16 register fragment layout for D"):
// thread t of the warpgroup holds, for each 8-column block j, the four values
//   d[4j + 0], d[4j + 1] -> row 16*(t/32) + (t%32)/4,     columns 8j + 2*(t%4) + {0, 1}
//   d[4j + 2], d[4j + 3] -> the same columns, row + 8.
#include <cstdint>

namespace symm::ptx {

// Matrix descriptor: bits 0-13 start address >> 4, 16-29 leading-dimension byte offset
// >> 4, 32-45 stride-dimension byte offset >> 4, 49-51 base offset (0: the swizzle atom
// of 8 rows is aligned to its size), 62-63 swizzle mode (1 = 128 B, 2 = 64 B, 3 = 32 B).
//   K-major operand (rows of 64 K-elements, 128-B swizzle): lbo unused (16), sbo = 1024
//   (8 rows apart).
//   MN-major operand (rows of MN-elements, one row per k, swizzled over the row's 32, 64
//   or 128 bytes): lbo = bytes between such MN chunks, sbo = 8 rows (8 k apart).
__device__ __forceinline__ std::uint64_t wgmma_desc(std::uint32_t smem_addr, std::uint32_t lbo_bytes,
                                                    std::uint32_t sbo_bytes, int swizzle_bytes) {
  const std::uint64_t mode = swizzle_bytes == 128 ? 1 : swizzle_bytes == 64 ? 2 : 3;
  return std::uint64_t((smem_addr & 0x3FFFF) >> 4) | (std::uint64_t(lbo_bytes >> 4) << 16) |
         (std::uint64_t(sbo_bytes >> 4) << 32) | (mode << 62);
}

// Orders this thread's register accesses before the next wgmma reads or writes them.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// Pins accumulator registers in place: the compiler may not move their reads or writes
// across this point (it cannot see that an in-flight wgmma owns them).
template <int N>
__device__ __forceinline__ void wgmma_fence_operands(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Wgmma<N, kFp16, kTransA, kTransB>::mma(d, desc_a, desc_b): d += A * B for one m64nNk16
// step. kTransA = 0: A is K-major (64 rows of K); 1: M-major (K rows of 64).
// kTransB = 0: B is K-major (N rows of K); 1: B is N-major (K rows of N).
template <int N, bool kFp16, int kTransA, int kTransB>
struct Wgmma;

// Accumulators [FROM, FROM + N) of d, as the array one narrower wgmma takes (columns
// 8 FROM / 4 .. of the fragment layout above).
template <int N, int FROM, int TOTAL>
__device__ __forceinline__ float (&accumulator_slice(float (&d)[TOTAL]))[N] {
  static_assert(FROM + N <= TOTAL);
  return *reinterpret_cast<float(*)[N]>(d + FROM);
}

#define SYMM_WGMMA_R32_0 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define SYMM_WGMMA_R32_1 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define SYMM_WGMMA_R32_2 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define SYMM_WGMMA_R32_3 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define SYMM_WGMMA_R8_0 "%0, %1, %2, %3, %4, %5, %6, %7"
#define SYMM_WGMMA_R8_8 "%8, %9, %10, %11, %12, %13, %14, %15"
#define SYMM_WGMMA_R8_32 "%32, %33, %34, %35, %36, %37, %38, %39"
#define SYMM_WGMMA_R4_40 "%40, %41, %42, %43"
#define SYMM_WGMMA_R4_96 "%96, %97, %98, %99"
#define SYMM_WGMMA_R8_64 "%64, %65, %66, %67, %68, %69, %70, %71"
#define SYMM_WGMMA_R8_72 "%72, %73, %74, %75, %76, %77, %78, %79"
#define SYMM_WGMMA_R4_72 "%72, %73, %74, %75"
#define SYMM_WGMMA_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define SYMM_WGMMA_D8(i)                                                                \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define SYMM_WGMMA_D32(i) \
  SYMM_WGMMA_D8(i), SYMM_WGMMA_D8(i + 8), SYMM_WGMMA_D8(i + 16), SYMM_WGMMA_D8(i + 24)

// REGS: the accumulator operand list; DA, DB, TA, TB: operand numbers of desc_a, desc_b
// and the transpose immediates (they follow the N/2 accumulators); the rest: accumulators.
#define SYMM_DEFINE_WGMMA(N, IS_F16, TYPE, REGS, DA, DB, TA, TB, ...)                        \
  template <int kTransA, int kTransB>                                                      \
  struct Wgmma<N, IS_F16, kTransA, kTransB> {                                              \
    __device__ __forceinline__ static void mma(float (&d)[N / 2], std::uint64_t desc_a,    \
                                               std::uint64_t desc_b) {                     \
      asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " {" REGS \
                   "}, %" DA ", %" DB ", 1, 1, 1, %" TA ", %" TB ";\n"                      \
                   : __VA_ARGS__                                                           \
                   : "l"(desc_a), "l"(desc_b), "n"(kTransA), "n"(kTransB));                \
    }                                                                                      \
  };

#define SYMM_DEFINE_WGMMA_TYPES(N, REGS, DA, DB, TA, TB, ...)                  \
  SYMM_DEFINE_WGMMA(N, false, "bf16", REGS, DA, DB, TA, TB, __VA_ARGS__) \
  SYMM_DEFINE_WGMMA(N, true, "f16", REGS, DA, DB, TA, TB, __VA_ARGS__)

SYMM_DEFINE_WGMMA_TYPES(16, SYMM_WGMMA_R8_0, "8", "9", "10", "11", SYMM_WGMMA_D8(0))
SYMM_DEFINE_WGMMA_TYPES(32, SYMM_WGMMA_R8_0 ", " SYMM_WGMMA_R8_8, "16", "17", "18", "19", SYMM_WGMMA_D8(0),
                        SYMM_WGMMA_D8(8))
SYMM_DEFINE_WGMMA_TYPES(64, SYMM_WGMMA_R32_0, "32", "33", "34", "35", SYMM_WGMMA_D32(0))
SYMM_DEFINE_WGMMA_TYPES(88, SYMM_WGMMA_R32_0 ", " SYMM_WGMMA_R8_32 ", " SYMM_WGMMA_R4_40, "44", "45", "46", "47",
                        SYMM_WGMMA_D32(0), SYMM_WGMMA_D8(32), SYMM_WGMMA_D4(40))
SYMM_DEFINE_WGMMA_TYPES(128, SYMM_WGMMA_R32_0 ", " SYMM_WGMMA_R32_1, "64", "65", "66", "67",
                        SYMM_WGMMA_D32(0), SYMM_WGMMA_D32(32))
SYMM_DEFINE_WGMMA_TYPES(144, SYMM_WGMMA_R32_0 ", " SYMM_WGMMA_R32_1 ", " SYMM_WGMMA_R8_64, "72",
                        "73", "74", "75", SYMM_WGMMA_D32(0), SYMM_WGMMA_D32(32), SYMM_WGMMA_D8(64))
SYMM_DEFINE_WGMMA_TYPES(152, SYMM_WGMMA_R32_0 ", " SYMM_WGMMA_R32_1 ", " SYMM_WGMMA_R8_64 ", " SYMM_WGMMA_R4_72,
                        "76", "77", "78", "79", SYMM_WGMMA_D32(0), SYMM_WGMMA_D32(32), SYMM_WGMMA_D8(64),
                        SYMM_WGMMA_D4(72))
SYMM_DEFINE_WGMMA_TYPES(160, SYMM_WGMMA_R32_0 ", " SYMM_WGMMA_R32_1 ", " SYMM_WGMMA_R8_64 ", " SYMM_WGMMA_R8_72,
                        "80", "81", "82", "83", SYMM_WGMMA_D32(0), SYMM_WGMMA_D32(32), SYMM_WGMMA_D8(64),
                        SYMM_WGMMA_D8(72))
SYMM_DEFINE_WGMMA_TYPES(192, SYMM_WGMMA_R32_0 ", " SYMM_WGMMA_R32_1 ", " SYMM_WGMMA_R32_2, "96",
                        "97", "98", "99", SYMM_WGMMA_D32(0), SYMM_WGMMA_D32(32), SYMM_WGMMA_D32(64))
SYMM_DEFINE_WGMMA_TYPES(200, SYMM_WGMMA_R32_0 ", " SYMM_WGMMA_R32_1 ", " SYMM_WGMMA_R32_2 ", " SYMM_WGMMA_R4_96,
                        "100", "101", "102", "103", SYMM_WGMMA_D32(0), SYMM_WGMMA_D32(32), SYMM_WGMMA_D32(64),
                        SYMM_WGMMA_D4(96))
SYMM_DEFINE_WGMMA_TYPES(256,
                        SYMM_WGMMA_R32_0 ", " SYMM_WGMMA_R32_1 ", " SYMM_WGMMA_R32_2
                                         ", " SYMM_WGMMA_R32_3,
                        "128", "129", "130", "131", SYMM_WGMMA_D32(0), SYMM_WGMMA_D32(32),
                        SYMM_WGMMA_D32(64), SYMM_WGMMA_D32(96))

#undef SYMM_DEFINE_WGMMA_TYPES
#undef SYMM_DEFINE_WGMMA
#undef SYMM_WGMMA_D32
#undef SYMM_WGMMA_D8
#undef SYMM_WGMMA_D4
#undef SYMM_WGMMA_R4_96
#undef SYMM_WGMMA_R32_0
#undef SYMM_WGMMA_R32_1
#undef SYMM_WGMMA_R32_2
#undef SYMM_WGMMA_R32_3
#undef SYMM_WGMMA_R8_0
#undef SYMM_WGMMA_R8_8
#undef SYMM_WGMMA_R8_32
#undef SYMM_WGMMA_R4_40
#undef SYMM_WGMMA_R8_64
#undef SYMM_WGMMA_R8_72
#undef SYMM_WGMMA_R4_72

}  // namespace symm::ptx
