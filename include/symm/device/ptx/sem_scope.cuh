#pragma once
// Selecting the PTX spelling of a (memory order, scope) pair at compile time.
//
// Inline asm needs a string literal, so a wrapper cannot paste ".acquire.sys" from
// template arguments; instead SYMM_PTX_SEM_SCOPE(Order, Scope, EMIT) expands to an
// if-constexpr ladder that calls the macro EMIT(sem, scope) with literals such as
// ("acquire", "sys") in the branch that matches, and literal concatenation builds
// the instruction: "atom." sem "." scope ".global.add.noftz.f16 ...". Only the chosen
// branch is instantiated. Orders and scopes follow cuda::memory_order / thread_scope.
#include <cuda/atomic>

#define SYMM_PTX_SEM(Order, scope, EMIT)                                          \
  if constexpr ((Order) == cuda::memory_order_relaxed) {                          \
    EMIT("relaxed", scope)                                                        \
  } else if constexpr ((Order) == cuda::memory_order_acquire) {                   \
    EMIT("acquire", scope)                                                        \
  } else if constexpr ((Order) == cuda::memory_order_release) {                   \
    EMIT("release", scope)                                                        \
  } else {                                                                        \
    static_assert((Order) == cuda::memory_order_acq_rel, "unsupported order");   \
    EMIT("acq_rel", scope)                                                        \
  }

#define SYMM_PTX_SEM_SCOPE(Order, Scope, EMIT)                                    \
  if constexpr ((Scope) == cuda::thread_scope_block) {                            \
    SYMM_PTX_SEM(Order, "cta", EMIT)                                              \
  } else if constexpr ((Scope) == cuda::thread_scope_device) {                    \
    SYMM_PTX_SEM(Order, "gpu", EMIT)                                              \
  } else {                                                                        \
    static_assert((Scope) == cuda::thread_scope_system, "unsupported scope");     \
    SYMM_PTX_SEM(Order, "sys", EMIT)                                              \
  }
