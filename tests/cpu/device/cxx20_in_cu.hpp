#pragma once
// __cplusplus as nvcc saw it while compiling cxx20_in_cu.cu.
long cplusplus_seen_by_nvcc();
