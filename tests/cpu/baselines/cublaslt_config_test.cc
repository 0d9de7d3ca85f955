// The cuBLASLt baseline names the algorithm it runs in our terms: cuBLASLt computes our C
// transposed, so its tile and cluster extents come out swapped (M first), and its enum ids
// are named from the toolkit's header. Algorithm descriptors are plain host structures:
// their configuration attributes are set and read without a GPU.
#include <gtest/gtest.h>

#include <cstdint>

#include "symm/baselines/cublaslt_gemm.hpp"

namespace symm::baselines {
namespace {

template <class T>
void set(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute, T value) {
  ASSERT_EQ(cublasLtMatmulAlgoConfigSetAttribute(&algo, attribute, &value, sizeof value), CUBLAS_STATUS_SUCCESS);
}

cublasLtMatmulAlgo_t algo_with(std::uint32_t tile, std::uint32_t stages, std::uint16_t cluster,
                               std::int32_t k_splits, std::uint32_t reduction) {
  cublasLtMatmulAlgo_t algo{};
  set(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, tile);
  set(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, stages);
  set(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster);
  set(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, k_splits);
  set(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, reduction);
  return algo;
}

TEST(CublasLtConfig, TileAndClusterReadAsOursWithMFirst) {
  const CublasLtConfig c = describe(algo_with(CUBLASLT_MATMUL_TILE_72x128, CUBLASLT_MATMUL_STAGES_64x4,
                                              CUBLASLT_CLUSTER_SHAPE_2x4x1, 3, CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE));
  EXPECT_EQ(c.tile, "128x72");
  EXPECT_EQ(c.stages, "64x4");
  EXPECT_EQ(c.cluster, "4x2");
  EXPECT_EQ(c.k_splits, 3);
  EXPECT_EQ(c.reduction, "compute_type");
  EXPECT_EQ(c.name(), "128x72x64s4c4x2-k3");
}

TEST(CublasLtConfig, OneBlockClustersAndWholeTilesAddNothingToTheName) {
  const CublasLtConfig c = describe(algo_with(CUBLASLT_MATMUL_TILE_256x128, CUBLASLT_MATMUL_STAGES_64x3,
                                              CUBLASLT_CLUSTER_SHAPE_1x1x1, 1, CUBLASLT_REDUCTION_SCHEME_NONE));
  EXPECT_EQ(c.name(), "128x256x64s3");
  EXPECT_EQ(c.reduction, "none");
}

TEST(CublasLtConfig, AutomaticAndUnknownIdsAreSaidSo) {
  const CublasLtConfig automatic = describe(algo_with(CUBLASLT_MATMUL_TILE_64x64, CUBLASLT_MATMUL_STAGES_64xAUTO,
                                                      CUBLASLT_CLUSTER_SHAPE_AUTO, 1, CUBLASLT_REDUCTION_SCHEME_NONE));
  EXPECT_EQ(automatic.cluster, "auto");
  EXPECT_EQ(automatic.name(), "64x64x64sAUTOcauto");
  const CublasLtConfig unknown = describe(algo_with(60000, 60000, 60000, 1, 64));
  EXPECT_EQ(unknown.tile, "tile 60000");
  EXPECT_EQ(unknown.stages, "stages 60000");
  EXPECT_EQ(unknown.cluster, "cluster 60000");
  EXPECT_EQ(unknown.reduction, "scheme 64");
  EXPECT_EQ(unknown.name(), "tile 60000 (stages 60000)ccluster 60000");
  const CublasLtConfig undefined = describe(cublasLtMatmulAlgo_t{});
  EXPECT_EQ(undefined.tile, "undefined");
  EXPECT_EQ(undefined.stages, "undefined");
}

// What cuBLASLt picks where TMA cannot read the rows (4095 x 4095 x 4095, 2048 x 32001 x
// 4096 on an H200): a tile, no stages, an automatic cluster.
TEST(CublasLtConfig, UndefinedStagesAddNothingToTheName) {
  const CublasLtConfig c = describe(algo_with(CUBLASLT_MATMUL_TILE_256x128, CUBLASLT_MATMUL_STAGES_UNDEFINED,
                                              CUBLASLT_CLUSTER_SHAPE_AUTO, 1, CUBLASLT_REDUCTION_SCHEME_NONE));
  EXPECT_EQ(c.name(), "128x256cauto");
}

}  // namespace
}  // namespace symm::baselines
