// device/ headers compile for the device alone: they never include host-only symm
// headers (symm/host/...) or host-only libraries (fmt, CLI11, nlohmann/json).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace {

TEST(DeviceLayering, DeviceHeadersIncludeNoHostOnlyHeader) {
  const std::regex host_only(R"(#\s*include\s*[<"](symm/host/|fmt/|CLI/|nlohmann/))");
  const std::filesystem::path root = SYMM_DEVICE_INCLUDE_DIR;
  int headers = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream file(entry.path());
    std::string line;
    for (int number = 1; std::getline(file, line); ++number) {
      EXPECT_FALSE(std::regex_search(line, host_only))
          << entry.path().string() << ":" << number << ": " << line;
    }
    ++headers;
  }
  EXPECT_GT(headers, 5) << "no device headers found under " << root;
}

}  // namespace
