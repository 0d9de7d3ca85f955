// 07_gemm_all_scatter (Iris example 07): every GEMM block computes a tile and stores it
// straight into every rank's C. The driver (examples/gemm_all_scatter) does the rest.
//
//   07_gemm_all_scatter -r 2 -m 8192 -n 4608 -k 36864 --validate --benchmark
#include "driver.hpp"
#include "symm/host/launch.hpp"

int main(int argc, char** argv) {
  symm::exit_with(symm::examples::gemm_all_scatter::run(
      argc, argv,
      {"07_gemm_all_scatter",
       "GEMM + all-scatter, fused sequential: each GEMM block copies its tile to every rank",
       symm::ops::ScatterVariant::fused_sequential}));
}
