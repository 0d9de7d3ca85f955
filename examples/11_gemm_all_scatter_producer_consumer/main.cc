// 11_gemm_all_scatter_producer_consumer (Iris example 11): a GEMM kernel and a scatter
// kernel of comm_sms blocks on two streams, the scatter waiting for each tile's flag.
// The driver (examples/gemm_all_scatter) does the rest.
//
//   11_gemm_all_scatter_producer_consumer -r 2 --comm_sms 16 --validate --benchmark
#include "driver.hpp"
#include "symm/host/launch.hpp"

int main(int argc, char** argv) {
  symm::exit_with(symm::examples::gemm_all_scatter::run(
      argc, argv,
      {"11_gemm_all_scatter_producer_consumer",
       "GEMM + all-scatter, producer-consumer: GEMM and scatter kernels on two streams",
       symm::ops::ScatterVariant::producer_consumer}));
}
