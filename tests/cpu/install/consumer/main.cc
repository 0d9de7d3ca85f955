#include <cuda_runtime.h>

#include <symm/host/launch.hpp>
#include <symm/host/runtime.hpp>
#include <symm/host/tensor.hpp>

void launch_announce(const symm::device::Context& ctx, int* slots, cudaStream_t stream);

int main() {
  symm::exit_with(symm::launch({}, [](symm::Team& team) {
    symm::Runtime rt(team, symm::RuntimeOptions::from_env());
    auto slots = symm::zeros<std::int32_t>(rt.heap(), {rt.world()}, nullptr);
    launch_announce(rt.context(), slots.data, nullptr);
    rt.barrier(nullptr);
    return 0;
  }));
}
