// The engine depends on nothing outside it (ARCHITECTURE.md): no file under src/engine/ may
// include adapters or the libraries they wrap.

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>

namespace {

TEST(Architecture, EngineIncludesNoAdapterOrInfrastructureHeader) {
    const std::regex forbidden(
        R"(#\s*include\s*[<"](cli/|api/|stores/|gardener/|director/|config/|curl/|sqlite|SQLiteCpp/|pqxx|libpq|CLI/|httplib|yaml-cpp/|spdlog/))");
    int files = 0;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(KPROV_SOURCE_DIR "/src/engine")) {
        if (!entry.is_regular_file())
            continue;
        ++files;
        std::ifstream in(entry.path());
        std::string line;
        int number = 0;
        while (std::getline(in, line)) {
            ++number;
            EXPECT_FALSE(std::regex_search(line, forbidden))
                << entry.path().string() << ":" << number << ": " << line;
        }
    }
    EXPECT_GT(files, 5);
}

} // namespace
