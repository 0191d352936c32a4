// The one YAML reader (src/yaml/yaml_reader.cpp): its scalar rules, documents read by the
// parser, its bounds named with line and column, and yaml-cpp's 24-byte case in bounded memory.

#include "yaml/yaml_reader.hpp"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kprov::yaml {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json one(const std::string& text, ReadOptions options = {}) {
    Documents read = read_documents(text, options);
    EXPECT_EQ(read.documents.size(), 1u) << text;
    return read.documents.empty() ? json() : read.documents[0];
}

ReadError error_of(const std::string& text, ReadOptions options = {}) {
    try {
        read_documents(text, options);
    } catch (const ReadError& e) {
        return e;
    }
    ADD_FAILURE() << "read: " << text;
    return ReadError({}, "", "");
}

TEST(YamlReader, TypesPlainScalarsByTheCoreSchemaAndKeepsQuotedOnesText) {
    EXPECT_EQ(one("a: true\nb: \"true\"\nc: 'false'\nd: False\ne: 42\nf: -0x1\ng: 0o17\nh: 0x1F\n"
                  "i: 1.5e3\nj: ~\nk:\nl: null\nm: yes\nn: .inf\no: \"7\"\np: |\n  x\nq: !!str 3\n"
                  "r: ! 4\ns: 99999999999999999999\nt: v1.2\n"),
              json::parse(R"({"a":true,"b":"true","c":"false","d":false,"e":42,"f":"-0x1",
                  "g":15,"h":31,"i":1500.0,"j":null,"k":null,"l":null,"m":"yes","n":".inf",
                  "o":"7","p":"x\n","q":"3","r":"4","s":1e20,"t":"v1.2"})"));
}

TEST(YamlReader, TaggedScalarsAreCheckedAndUnknownTagsAreProblems) {
    const Documents read = read_documents("a: !!int 12\nb: !!bool maybe\nc: !custom 5\n");
    EXPECT_EQ(read.documents[0], json::parse(R"({"a":12,"b":null,"c":5})"));
    ASSERT_EQ(read.problems.size(), 2u);
    EXPECT_EQ(read.problems[0].path, "b");
    EXPECT_EQ(read.problems[0].message, "is not a valid bool: \"maybe\"");
    EXPECT_EQ(read.problems[1].message, "has the tag !custom, which kprov does not know");
    EXPECT_EQ(read.problems[1].mark.line, 3u);
}

TEST(YamlReader, AsWrittenKeepsTheTextOfEveryScalarButNull) {
    ReadOptions options;
    options.scalars = Scalars::AsWritten;
    EXPECT_EQ(one("a: 010\nb: no\nc: ~\nd:\ne: '~'\n", options),
              json::parse(R"({"a":"010","b":"no","c":null,"d":null,"e":"~"})"));
}

TEST(YamlReader, ReadsEveryDocumentThroughTheParser) {
    const Documents read = read_documents("a: 1\n---\n# only a comment\n--- \nb: |\n  x\n  ---\n");
    ASSERT_EQ(read.documents.size(), 3u);
    EXPECT_EQ(read.documents[0], json::parse(R"({"a":1})"));
    EXPECT_TRUE(read.documents[1].is_null());
    EXPECT_EQ(read.documents[2], json::parse(R"({"b":"x\n---\n"})"));
    EXPECT_EQ(read.marks[2].line, 5u);
    EXPECT_TRUE(read_documents("").documents.empty());
}

TEST(YamlReader, RepeatedAndNonTextKeysAreProblemsWithTheirPlace) {
    const Documents read = read_documents("a:\n  k: 1\n  k: 2\n[x]: 3\nb: [{c: 1, c: 2}]\n");
    EXPECT_EQ(read.documents[0], json::parse(R"({"a":{"k":1},"b":[{"c":1}]})"));
    ASSERT_EQ(read.problems.size(), 3u);
    EXPECT_EQ(read.problems[0].path, "a.k");
    EXPECT_EQ(read.problems[0].message, "is given twice (first at line 2)");
    EXPECT_EQ(read.problems[0].mark.line, 3u);
    EXPECT_EQ(read.problems[0].mark.column, 3u);
    EXPECT_EQ(read.problems[1].message, "has a key that is not text");
    EXPECT_EQ(read.problems[2].path, "b[0].c");
    ReadOptions last;
    last.duplicate_keys = DuplicateKeys::LastWins;
    EXPECT_EQ(one("k: 1\nk: 2\n", last), json::parse(R"({"k":2})"));
}

TEST(YamlReader, AliasesAreExpandedAndCyclesOrUnknownNamesRefused) {
    EXPECT_EQ(one("a: &x {b: [1, two]}\nc: *x\ne: &k key\n*k : w\n"),
              json::parse(R"({"a":{"b":[1,"two"]},"c":{"b":[1,"two"]},"e":"key","key":"w"})"));
    EXPECT_EQ(error_of("a: *nope\n").message(), "the alias *nope names no anchor");
    const ReadError cycle = error_of("a: &x [*x]\n");
    EXPECT_THAT(cycle.message(), HasSubstr("(the alias *x is inside the node it names)"));
    EXPECT_EQ(cycle.bound(), "max_depth");
}

TEST(YamlReader, EachBoundIsNamedWithLineAndColumn) {
    ReadOptions options;
    options.bounds = {1000, 3, 50, 100};
    const ReadError deep = error_of("a:\n  b:\n    c: [x]\n", options);
    EXPECT_EQ(deep.bound(), "max_depth");
    EXPECT_EQ(deep.mark().line, 3u);
    EXPECT_EQ(deep.mark().column, 8u);
    EXPECT_THAT(
        deep.what(),
        HasSubstr("nests deeper than 3 levels of mappings and sequences (line 3, column 8)"));
    EXPECT_EQ(error_of(std::string(1001, '#'), options).bound(), "max_text_bytes");
    std::string nodes = "[";
    for (int i = 0; i < 60; ++i)
        nodes += "1,";
    EXPECT_EQ(error_of(nodes + "]", options).bound(), "max_nodes");
    const std::string laughs = "a: &a " + std::string(40, 'x') + "\nb: [*a, *a]\n";
    EXPECT_EQ(error_of(laughs, options).bound(), "max_expanded_bytes");
    const ReadError syntax = error_of("a: [1,\n", options);
    EXPECT_EQ(syntax.bound(), "");
    EXPECT_EQ(syntax.mark().line, 2u);
}

TEST(YamlReader, ABillionLaughsIsRefusedBeforeItIsBuilt) {
    std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (int i = 1; i < 10; ++i)
        text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + std::string(9, ' ') +
                "*a" + std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + ", *a" +
                std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + ", *a" +
                std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + ", *a" +
                std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + ", *a" +
                std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + "]\n";
    EXPECT_EQ(error_of(text).bound(), "max_nodes");
}

TEST(YamlReader, NestedAnchorsCannotHoldMoreThanTheExpandedBound) {
    ReadOptions options;
    options.bounds = {1u << 20, 64, 100'000, 1000};
    std::string text;
    for (int i = 0; i < 20; ++i)
        text += std::string(static_cast<std::size_t>(i) * 2, ' ') + "k" + std::to_string(i) +
                ": &a" + std::to_string(i) + "\n";
    text += std::string(40, ' ') + "v: " + std::string(300, 'x') + "\n";
    EXPECT_EQ(error_of(text, options).bound(), "max_expanded_bytes");
}

TEST(YamlReader, MarksOfEveryValueAreRecordedByJsonPointerWhenAsked) {
    ReadOptions options;
    options.record_marks = true;
    const Documents read = read_documents("a:\n  b/c: [1, 2]\nd.e: x\n", options);
    const auto& marks = read.value_marks.at(0);
    EXPECT_EQ(marks.at("/a").line, 2u);
    EXPECT_EQ(marks.at("/a/b~1c/1").column, 12u);
    EXPECT_EQ(marks.at("/d.e").line, 3u);
}

// yaml-cpp 0.7 grew without bound on these 24 valid bytes (tests/fuzz/known/). The reader runs
// in a child whose peak memory is measured (wait4): it reads them (one tagged plain scalar with
// an unknown tag) and stays far below what yaml-cpp took.
TEST(YamlReader, YamlCpps24ByteCaseIsReadInBoundedMemory) {
    std::ifstream in(KPROV_SOURCE_DIR "/tests/fuzz/known/yaml-cpp-memory-24-bytes-open.yaml",
                     std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string text = bytes.str();
    ASSERT_EQ(text.size(), 24u);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        int code = 3;
        try {
            const Documents read = read_documents(text);
            code = read.documents.size() == 1 ? 0 : 1;
        } catch (const ReadError&) {
            code = 2;
        }
        _exit(code);
    }
    int status = 0;
    rusage usage{};
    ASSERT_EQ(wait4(child, &status, 0, &usage), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_LE(WEXITSTATUS(status), 2); // read, or refused with a message
    std::cout << "[ RSS      ] peak of the child reading the 24 bytes: " << usage.ru_maxrss / 1024
              << " MiB\n";
    EXPECT_LT(usage.ru_maxrss, 256L * 1024);
}

} // namespace
} // namespace kprov::yaml
