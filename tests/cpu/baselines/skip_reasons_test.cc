// Why a baseline is skipped: NCCL absent, ranks sharing a GPU, an NCCL library too old for
// copy-engine collectives; and which ranks share a GPU.
#include "skip_reasons.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_identity.hpp"

namespace symm::baselines {
namespace {

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

NcclSituation usable() {
  NcclSituation s;
  s.found_at_configure = true;
  s.library_version = 22803;
  return s;
}

TEST(NcclSkipReasons, UsableNcclSkipsNothing) {
  EXPECT_EQ(nccl_skip_reason(usable()), "");
  EXPECT_EQ(nccl_copy_engine_skip_reason(usable()), "");
}

TEST(NcclSkipReasons, NotFoundAtConfigureTime) {
  NcclSituation s;
  const std::string reason = nccl_skip_reason(s);
  EXPECT_TRUE(mentions(reason, "NCCL not found at configure time")) << reason;
  EXPECT_TRUE(mentions(reason, "NCCL_ROOT")) << reason;
  EXPECT_EQ(nccl_copy_engine_skip_reason(s), nccl_skip_reason(s));
}

TEST(NcclSkipReasons, RanksSharingAGpu) {
  NcclSituation s = usable();
  s.shared_gpu = "ranks 0 and 1 share one GPU";
  EXPECT_EQ(nccl_skip_reason(s),
            "ranks 0 and 1 share one GPU, and NCCL needs a GPU per rank (run at most one rank "
            "per GPU)");
  EXPECT_EQ(nccl_copy_engine_skip_reason(s), nccl_skip_reason(s));
}

TEST(NcclSkipReasons, CopyEngineNeedsTheLibraryOf2283) {
  NcclSituation s = usable();
  s.library_version = 22703;
  EXPECT_EQ(nccl_skip_reason(s), "");
  const std::string reason = nccl_copy_engine_skip_reason(s);
  EXPECT_TRUE(mentions(reason, "2.27.3")) << reason;
  EXPECT_TRUE(mentions(reason, "2.28.3 or later")) << reason;
  s.library_version = 22809;
  EXPECT_EQ(nccl_copy_engine_skip_reason(s), "");
}

TEST(NcclSkipReasons, VersionCodes) {
  EXPECT_EQ(nccl_version_string(22803), "2.28.3");
  EXPECT_EQ(nccl_version_string(21903), "2.19.3");
  EXPECT_EQ(nccl_version_string(2708), "2.7.8");
}

TEST(SharedGpu, DistinctUuidsShareNothing) {
  const std::vector<GpuUuid> uuids = {GpuUuid{1}, GpuUuid{2}, GpuUuid{3}};
  EXPECT_EQ(describe_shared_gpu(uuids), "");
  EXPECT_EQ(describe_shared_gpu(std::vector<GpuUuid>{GpuUuid{7}}), "");
}

TEST(SharedGpu, NamesTheFirstPairSharing) {
  EXPECT_EQ(describe_shared_gpu(std::vector<GpuUuid>{GpuUuid{1}, GpuUuid{2}, GpuUuid{1}}),
            "ranks 0 and 2 share one GPU");
  EXPECT_EQ(
      describe_shared_gpu(std::vector<GpuUuid>{GpuUuid{1}, GpuUuid{2}, GpuUuid{2}, GpuUuid{1}}),
      "ranks 1 and 2 share one GPU");
}

}  // namespace
}  // namespace symm::baselines
