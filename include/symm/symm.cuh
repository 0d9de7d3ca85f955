#pragma once
// symm's device API in one include, for .cu files (docs/memory-model.md explains the
// rules): the heap context, remote loads and stores, cooperative ranges and tiles,
// atomics, flags and the cross-rank barrier.
#include "symm/device/atomic.cuh"
#include "symm/device/barrier.cuh"
#include "symm/device/context.cuh"
#include "symm/device/rma.cuh"
#include "symm/device/signal.cuh"
#include "symm/device/tile.cuh"
