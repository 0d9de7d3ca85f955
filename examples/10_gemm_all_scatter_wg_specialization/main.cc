// 10_gemm_all_scatter_wg_specialization (Iris example 10): one persistent kernel whose
// gemm_sms blocks compute tiles and release a flag per tile, while the other blocks wait
// for each tile and copy it to every rank. The driver (examples/gemm_all_scatter) does
// the rest.
//
//   10_gemm_all_scatter_wg_specialization -r 2 --gemm_sms 112 --validate --benchmark
#include "driver.hpp"
#include "symm/host/launch.hpp"

int main(int argc, char** argv) {
  symm::exit_with(symm::examples::gemm_all_scatter::run(
      argc, argv,
      {"10_gemm_all_scatter_wg_specialization",
       "GEMM + all-scatter, workgroup specialization: GEMM blocks and copy blocks in one kernel",
       symm::ops::ScatterVariant::wg_specialization}));
}
