// The check before yaml-cpp (src/yaml/): libyaml reads the text as YAML, event by event.

#include "yaml/yaml_check.hpp"
#include "yaml/yaml_comma.hpp"

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

TEST(YamlCheck, ControlCharactersAreLeftToTheReadersBytesThatAreNotUtf8AreNot) {
    // The readers name the field and the character; the syntax around it is still checked.
    EXPECT_FALSE(syntax_problem("a: \"x\"\nb: \x01\n"));
    EXPECT_FALSE(syntax_problem("a: \xc2\x80\n"));
    EXPECT_TRUE(syntax_problem("a: \x01\nb: [\n"));
    // yaml-cpp grew without bound on some bytes that are not UTF-8 (yaml_bounds_fuzz, issue 32):
    // they never reach it.
    const auto found = syntax_problem("a: 1\nb: \"xy\xff\"\n");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->line, 2u);
    EXPECT_EQ(found->message, "a byte that is not UTF-8 at column 7");
}

// Issue 32, finding 4: a 1 MB release with 600 aliases of a 1 MiB string cost 1.9 GB. The
// bounds count what aliases expand to without expanding them.
std::string laughs(std::size_t scalar_bytes, int aliases) {
    std::string text = "a: &a " + std::string(scalar_bytes, 'x') + "\nb: [";
    for (int i = 0; i < aliases; ++i)
        text += i ? ", *a" : "*a";
    return text + "]\n";
}

TEST(YamlBounds, AliasesAreCountedAtTheSizeTheyExpandTo) {
    const Bounds bounds{0, 64, 1'000'000, 64u << 20};
    EXPECT_FALSE(syntax_problem(laughs(1u << 20, 60), bounds)) << "61 MiB";
    const auto over = syntax_problem(laughs(1u << 20, 600), bounds);
    ASSERT_TRUE(over);
    EXPECT_EQ(over->message, "expands to more than 64 MiB of text (aliases repeated too often)");
    EXPECT_EQ(over->line, 2u);
    // Nested: ten aliases of ten aliases ... of a list, 10^7 nodes from a few hundred bytes.
    std::string text = "l0: &l0 [1, 2]\n";
    for (int level = 1; level < 8; ++level) {
        const std::string name = "l" + std::to_string(level);
        const std::string previous = "*l" + std::to_string(level - 1);
        text += name + ": &" + name + " [" + previous;
        for (int i = 1; i < 10; ++i)
            text += ", " + previous;
        text += "]\n";
    }
    const auto nodes = syntax_problem(text, bounds);
    ASSERT_TRUE(nodes);
    EXPECT_EQ(nodes->message, "expands to more than 1000000 nodes (aliases repeated too often)");
    EXPECT_FALSE(syntax_problem(text)) << "no bounds given, none applied";
}

TEST(YamlBounds, DepthCountsWhatAnAliasBringsAlong) {
    const Bounds bounds{0, 4, 0, 0};
    EXPECT_FALSE(syntax_problem("a: [[[1]]]\n", bounds)) << "4 levels";
    EXPECT_EQ(syntax_problem("a: [[[[1]]]]\n", bounds)->message,
              "nests deeper than 4 levels of mappings and sequences");
    EXPECT_FALSE(syntax_problem("a: &x [[1]]\nb: *x\n", bounds));
    EXPECT_TRUE(syntax_problem("a: &x [[1]]\nb: [[*x]]\n", bounds)) << "2 + 3 levels";
    const std::string deep = "a: " + std::string(100'000, '[') + std::string(100'000, ']');
    EXPECT_TRUE(syntax_problem(deep, bounds));
}

TEST(YamlBounds, AnAliasInsideTheNodeItNamesIsRefused) {
    const Bounds bounds{0, 64, 0, 0};
    EXPECT_EQ(syntax_problem("a: &x [*x]\n", bounds)->message,
              "the alias *x is inside the node it names");
    EXPECT_TRUE(syntax_problem("a: &x {b: [c, *x]}\n", bounds));
    EXPECT_FALSE(syntax_problem("a: &x [&x 1, *x]\n", bounds)) << "*x is the scalar";
    EXPECT_FALSE(syntax_problem("a: &x [1]\nb: *x\n", bounds));
    EXPECT_FALSE(syntax_problem("a: &x [*x]\n")) << "no bounds given, none applied";
}

TEST(YamlCheck, ANulByteIsRefusedWithItsLine) {
    const auto found = syntax_problem(std::string("a: 1\nb: \"x\0y\"\n", 13));
    ASSERT_TRUE(found);
    EXPECT_EQ(found->line, 2u);
    EXPECT_EQ(found->message, "a NUL byte, which YAML does not allow");
}

TEST(YamlBounds, TheTextItselfAndEveryDocumentOfAStreamCount) {
    EXPECT_EQ(syntax_problem(std::string(2000, 'x'), Bounds{1024, 0, 0, 0})->message,
              "is 2000 bytes, more than the 1024 bytes limit");
    const Bounds bounds{0, 0, 5, 0};
    EXPECT_FALSE(syntax_problem("[1, 2]\n--- [3]\n", bounds));
    EXPECT_TRUE(syntax_problem("[1, 2]\n--- [3, 4]\n", bounds)) << "6 nodes in the stream";
}

// Debian's yaml-cpp 0.7 allocates without bound on a document that begins with ','
// (tests/fuzz/known/yaml-cpp-memory-135-bytes.yaml) and on a ',' first on a line left of the
// document's first line (yaml-cpp-memory-905-bytes.yaml); the readers refuse both first.
TEST(YamlComma, ADocumentBeginningWithACommaIsFoundAfterCommentsDirectivesMarkersAndProperties) {
    for (const std::string text :
         {",", "  , {}", "# c\n\n ,", "---\n,", "--- ,", "%YAML 1.2\n---\n,", "&a ,", "!t &a\n,",
          "a: 1\n---\n,", "a: 1\n...\n, x"}) {
        const auto found = yaml_comma_problem(text);
        ASSERT_TRUE(found) << text;
        EXPECT_EQ(found->message, k_yaml_comma_document) << text;
    }
    EXPECT_EQ(yaml_comma_problem("a: 1\n---\n# c\n  ,")->line, 4u);
}

TEST(YamlComma, ACommaLeftOfTheDocumentsFirstLineIsFound) {
    const auto found = yaml_comma_problem("# c\n    b: 1\n ,  c: 2\n    d: 3\n");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->line, 3u);
    EXPECT_EQ(found->message, k_yaml_comma_outdented);
    EXPECT_TRUE(yaml_comma_problem("a: 1\n---\n  b: 1\n , c\n"));
    EXPECT_TRUE(yaml_comma_problem("--- &x\n  b: 1\n ,\n"));
}

TEST(YamlComma, ValidYamlWithCommasIsLeftToTheParser) {
    for (const std::string text :
         {"", "a: 1", "x, {}", "[a, &x ,]", "a: ,", "- ,", "x\n,", "a: |\n  ,\n", "\"a,\": 1",
          "# ,", "a: [1\n , 2]\n", "  a: [1\n  , 2]\n", "a:\n  b: 1\n , c: 2\n"})
        EXPECT_FALSE(yaml_comma_problem(text)) << text;
}

} // namespace
} // namespace kprov::yaml
