// The input bounds every reader shares (engine/input/input_limits.hpp) and the engine's own guard:
// a document nested too deeply or holding text that is not UTF-8 is refused whole, whichever
// front it came through (a GraphQL literal, a runtime file); the runtime's texts have caps.

#include "engine/input/input_limits.hpp"
#include "runtime_input_testing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

using namespace testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// {"a": {"a": ... 1}} with `depth` objects.
json nested(std::size_t depth) {
    json value = 1;
    for (std::size_t i = 0; i < depth; ++i) {
        json outer = json::object();
        outer["a"] = std::move(value);
        value = std::move(outer);
    }
    return value;
}

std::vector<std::string> read_lines(const json& document) {
    return lines(problems_of([&] { (void)read_provision_input(document, k_options); }));
}

TEST(InputBounds, Utf8IsCheckedAsRfc3629Says) {
    EXPECT_EQ(invalid_utf8_at("plain ascii"), std::nullopt);
    EXPECT_EQ(invalid_utf8_at("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"), std::nullopt);
    EXPECT_EQ(invalid_utf8_at("abc\xff"), 3u);
    EXPECT_EQ(invalid_utf8_at("\xc0\xaf"), 0u);         // overlong '/'
    EXPECT_EQ(invalid_utf8_at("x\xed\xa0\x80"), 1u);    // a UTF-16 surrogate
    EXPECT_EQ(invalid_utf8_at("\xf4\x90\x80\x80"), 0u); // beyond U+10FFFF
    EXPECT_EQ(invalid_utf8_at("ab\xe2\x82"), 2u);       // cut short
}

TEST(InputBounds, SizesReadAsTheLimitsAndFilesSay) {
    EXPECT_EQ(describe_size(4u << 20), "4 MiB");
    EXPECT_EQ(describe_size(1u << 20), "1 MiB");
    EXPECT_EQ(describe_size((4u << 20) + 1), "4194305 bytes");
    EXPECT_EQ(describe_size(210'000'000), "210 MB");
    EXPECT_EQ(describe_size(1), "1 byte");
}

TEST(InputBounds, NestingIsCountedAsForGraphQLVariables) {
    EXPECT_EQ(input_bounds_problem(nested(k_max_input_nesting), ""), std::nullopt);
    const auto problem = input_bounds_problem(nested(k_max_input_nesting + 1), "labels");
    ASSERT_TRUE(problem);
    EXPECT_EQ(problem->path, "labels.a.a.a.a.a.a.a.a.a.a.a.a (and 52 levels below)");
    EXPECT_EQ(problem->message, "nests deeper than 64 levels of objects and lists");
    EXPECT_EQ(input_bounds_problem(json::array({json::array({1})}), "", 1)->path, "[0]");
}

TEST(InputBounds, PathsNeverCarryTheBytesTheyReport) {
    json value = {{"ok", {{std::string("bad\x1b[2J\xff", 8), "x"}}}};
    EXPECT_EQ(input_bounds_problem(value, "")->path, "ok");
    EXPECT_EQ(input_bounds_problem(value, "")->message,
              "a member name has invalid UTF-8 at byte 7");
    EXPECT_EQ(input_path_segment("esc\x1b"), "esc\\x1b");
    EXPECT_EQ(input_path_segment(std::string(50, 'k')), std::string(40, 'k') + "...");
}

TEST(InputBounds, ADocumentNestedTooDeeplyIsRefusedWholeBeforeItIsWalked) {
    json doc = provision_document();
    doc["runtimeInput"]["labels"] = nested(50'000);
    EXPECT_THAT(read_lines(doc),
                ElementsAre("runtimeInput.labels.a.a.a.a.a.a.a.a.a.a (and 52 levels below): "
                            "nests deeper than 64 levels of objects and lists"));
    json upgrade = {{"gardenerConfig", {{"kubernetesVersion", nested(100)}}}};
    EXPECT_THAT(lines(problems_of([&] { (void)read_upgrade_input(upgrade); })),
                ElementsAre(HasSubstr("gardenerConfig.kubernetesVersion.a")));
    json kyma = {{"kymaConfig", nested(70)}};
    EXPECT_THAT(lines(problems_of([&] { (void)read_kyma_upgrade_input(kyma); })),
                ElementsAre(HasSubstr("nests deeper than 64 levels")));
}

TEST(InputBounds, TextThatIsNotUtf8IsRefusedWithItsPath) {
    json doc = provision_document();
    doc["runtimeInput"]["labels"] = {{"team", {"ok", std::string("\x80")}}};
    EXPECT_THAT(read_lines(doc),
                ElementsAre("runtimeInput.labels.team[1]: invalid UTF-8 at byte 0"));
}

TEST(InputBounds, TheRuntimesTextsHaveCaps) {
    json doc = provision_document();
    doc["runtimeInput"]["name"] = std::string(257, 'n');
    doc["runtimeInput"]["description"] = std::string(2001, 'd');
    doc["runtimeInput"]["labels"] = {{"big", std::string(300 * 1024, 'l')}};
    EXPECT_THAT(read_lines(doc),
                ElementsAre("runtimeInput.name: must be at most 256 bytes, got 257 bytes",
                            "runtimeInput.description: must be at most 2000 bytes, got 2001 bytes",
                            HasSubstr("runtimeInput.labels: must be at most 256 KiB, got ")));
}

} // namespace
} // namespace kprov::engine
