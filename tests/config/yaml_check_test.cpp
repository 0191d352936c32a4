// The check before yaml-cpp (src/yaml/): libyaml reads the text as YAML, event by event.

#include "yaml/yaml_check.hpp"

#include <gtest/gtest.h>

namespace kprov::yaml {
namespace {

TEST(YamlCheck, ValidYamlPasses) {
    for (const std::string text : {"", "a: 1", "a:\n  - b\n  - {c: [1, 2]}\n", "--- x\n--- y\n",
                                   "a: &x 1\nb: *x\n", "a: |\n  , literal\n", "a: [1\n , 2]\n"})
        EXPECT_FALSE(syntax_problem(text)) << text;
}

TEST(YamlCheck, InvalidYamlIsNamedWithItsLine) {
    const auto found = syntax_problem("a: 1\nb: [1, 2\nc: 3\n");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->line, 3u);
    EXPECT_NE(found->message.find("did not find expected ',' or ']'"), std::string::npos)
        << found->message;
    EXPECT_EQ(syntax_problem("    b: 1\n ,  c: 2\n")->line, 2u) << "the comma rule comes first";
}

TEST(YamlCheck, BytesLibyamlsReaderRefusesAreLeftToTheReaders) {
    // The readers name the field and the byte; the syntax around them is still checked.
    EXPECT_FALSE(syntax_problem("a: \"\xff\"\nb: \x01\n"));
    EXPECT_FALSE(syntax_problem("a: \xc2\x80\n"));
    EXPECT_TRUE(syntax_problem("a: \xff\nb: [\n"));
}

} // namespace
} // namespace kprov::yaml
