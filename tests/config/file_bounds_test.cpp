// The config file's bounds: its size (refused before it is read), its nesting and UTF-8, each
// refused with a message naming the file and the key, never the bytes.

#include "config_testing.hpp"
#include "engine/input/input_limits.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::config {
namespace {

using testing::Env;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::sources_with;
using testing::TempDir;

class ConfigFileBounds : public ::testing::Test {
protected:
    Env env() const { return {{"HOME", m_dir.file("home")}}; }
    std::string config(const std::string& text) const { return m_dir.write("config.yaml", text); }
    std::string load_error_of(const std::string& path) const {
        return testing::load_error(sources_with(env(), {}, path));
    }

    TempDir m_dir;
};

TEST_F(ConfigFileBounds, AFileLargerThanTheLimitIsRefusedBeforeItIsRead) {
    const auto path = config("");
    std::filesystem::resize_file(path, 300u << 20); // sparse
    EXPECT_THAT(load_error_of(path),
                HasSubstr("config file " + path + ": 300 MiB is more than the 1 MiB limit"));
}

TEST_F(ConfigFileBounds, AFileAtTheLimitIsReadAndOneByteMoreIsNot) {
    std::string text = "tenant: at-limit\n";
    text += std::string(k_max_config_file_bytes - text.size(), '#');
    const auto path = config(text);
    EXPECT_EQ(load(sources_with(env(), {}, path)).settings.tenant, "at-limit");
    std::ofstream(path, std::ios::app) << "#";
    EXPECT_THAT(load_error_of(path), HasSubstr("1048577 bytes is more than the 1 MiB limit"));
}

// Refused with its line and column before yaml-cpp sees it (issue 32: yaml-cpp grew without
// bound on some bytes that are not UTF-8).
TEST_F(ConfigFileBounds, InvalidUtf8NamesTheLineAndColumn) {
    const auto path = config("tenant: \"abc\xff\"\n");
    const auto message = load_error_of(path);
    EXPECT_THAT(message, HasSubstr("config file " + path +
                                   " is not valid YAML: a byte that is not UTF-8 at column 13 "
                                   "(line 1)"));
    EXPECT_THAT(message, Not(HasSubstr("\xff")));
}

TEST_F(ConfigFileBounds, DeepNestingIsRefused) {
    std::string text;
    for (int i = 0; i < 70; ++i)
        text += std::string(static_cast<std::size_t>(i) * 2, ' ') + "a:\n";
    text += std::string(140, ' ') + "b: 1\n";
    EXPECT_THAT(load_error_of(config(text)), HasSubstr("nests deeper than 64 levels"));
    const std::string flow = "a: " + std::string(10'000, '[') + std::string(10'000, ']') + "\n";
    EXPECT_THAT(load_error_of(config(flow)), HasSubstr("nests deeper than 64 levels"));
}

} // namespace
} // namespace kprov::config
