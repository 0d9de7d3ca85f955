// GoogleTest's main, except that a run in which every selected test skipped exits with
// SYMM_TEST_SKIP_EXIT_CODE, CTest's SKIP_RETURN_CODE. CTest runs one case per process,
// so that is one case's skip; a failure (even one that also skipped) exits 1 and is
// reported failed, which a pattern matched against the output could not promise.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int code = RUN_ALL_TESTS();
  const ::testing::UnitTest& run = *::testing::UnitTest::GetInstance();
  const bool all_skipped = run.test_to_run_count() > 0 && run.skipped_test_count() == run.test_to_run_count();
  return code == 0 && all_skipped ? SYMM_TEST_SKIP_EXIT_CODE : code;
}
