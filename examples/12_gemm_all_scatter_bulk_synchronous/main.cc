// 12_gemm_all_scatter_bulk_synchronous (Iris example 12): the GEMM, then a scatter kernel
// on every SM copying the finished shard to every rank. The driver
// (examples/gemm_all_scatter) does the rest.
//
//   12_gemm_all_scatter_bulk_synchronous -r 2 --validate --benchmark
#include "driver.hpp"
#include "symm/host/launch.hpp"

int main(int argc, char** argv) {
  symm::exit_with(symm::examples::gemm_all_scatter::run(
      argc, argv,
      {"12_gemm_all_scatter_bulk_synchronous",
       "GEMM + all-scatter, bulk synchronous: GEMM, then a scatter kernel on every SM",
       symm::ops::ScatterVariant::bulk_synchronous}));
}
