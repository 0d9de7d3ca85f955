#pragma once
// The (operation, type) pairs the atomic API supports, as X-macro lists shared by the
// PTX probes (probes.cu) and the test that reads their PTX (ptx_test.cc): one list,
// so a pair cannot be probed without being checked or checked without being probed.
//
// SYMM_RMW_PAIRS(X), SYMM_LOAD_PAIRS(X), SYMM_STORE_PAIRS(X) call X(op, type) per pair; type is a short name that
// probes.cu maps to a C++ type (i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64). The bitwise
// operations are spelled bit_and, bit_or, bit_xor (`and` is a C++ operator token).

#define SYMM_TYPES_INTEGER(X, op) X(op, i32) X(op, u32) X(op, i64) X(op, u64)
#define SYMM_TYPES_ORDERED(X, op) SYMM_TYPES_INTEGER(X, op) X(op, f32) X(op, f64)
#define SYMM_TYPES_ARITHMETIC(X, op) SYMM_TYPES_ORDERED(X, op) X(op, f16) X(op, bf16)
#define SYMM_TYPES_WORD(X, op) SYMM_TYPES_ARITHMETIC(X, op) X(op, i16) X(op, u16)

// Read-modify-writes: every order (relaxed acquire release acq_rel) and scope.
#define SYMM_RMW_PAIRS(X)                                                              \
  SYMM_TYPES_ARITHMETIC(X, add)                                                        \
  SYMM_TYPES_ARITHMETIC(X, sub)                                                        \
  SYMM_TYPES_INTEGER(X, bit_and)                                                       \
  SYMM_TYPES_INTEGER(X, bit_or)                                                        \
  SYMM_TYPES_INTEGER(X, bit_xor)                                                       \
  SYMM_TYPES_ORDERED(X, min)                                                           \
  SYMM_TYPES_ORDERED(X, max)                                                           \
  SYMM_TYPES_ORDERED(X, xchg)                                                          \
  SYMM_TYPES_WORD(X, cas)

// Ordered loads (relaxed, acquire) and stores (relaxed, release), every scope.
#define SYMM_LOAD_PAIRS(X) SYMM_TYPES_WORD(X, load)
#define SYMM_STORE_PAIRS(X) SYMM_TYPES_WORD(X, store)
