#pragma once
// setmaxnreg (sm_90a): a warpgroup gives registers back to, or takes them from, the
// block's pool. It takes effect only in a kernel with a register cap at entry
// (__launch_bounds__(threads, 1)) and when each warpgroup role is one branch of an
// if/else; otherwise ptxas ignores it and says so (warning C7508).
namespace symm::ptx {

template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(kRegisters % 8 == 0 && kRegisters >= 24 && kRegisters <= 256);
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(kRegisters % 8 == 0 && kRegisters >= 24 && kRegisters <= 256);
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

}  // namespace symm::ptx
