// The -l parser and matcher (src/cli/label_selector.cpp), without the binary.

#include "cli/label_selector.hpp"

#include <gtest/gtest.h>

namespace kprov::cli {
namespace {

using Op = LabelRequirement::Op;

TEST(LabelSelector, ParsesEveryKubectlForm) {
    const auto selector = parse_label_selector(
        "team=orders, tier==gold,env != prod,cost-center,!legacy,zone in (a, b),app notin (x)");
    const LabelSelector expected = {
        {"team", Op::Equals, {"orders"}}, {"tier", Op::Equals, {"gold"}},
        {"env", Op::NotEquals, {"prod"}}, {"cost-center", Op::Exists, {}},
        {"legacy", Op::NotExists, {}},    {"zone", Op::In, {"a", "b"}},
        {"app", Op::NotIn, {"x"}},
    };
    EXPECT_EQ(selector, expected);
}

TEST(LabelSelector, KeysMayStartWithInOrNotin) {
    EXPECT_EQ(parse_label_selector("index=1"), (LabelSelector{{"index", Op::Equals, {"1"}}}));
    EXPECT_EQ(parse_label_selector("notinteresting"),
              (LabelSelector{{"notinteresting", Op::Exists, {}}}));
    EXPECT_EQ(parse_label_selector("example.com/team in(a)"),
              (LabelSelector{{"example.com/team", Op::In, {"a"}}}));
    EXPECT_EQ(parse_label_selector("team="), (LabelSelector{{"team", Op::Equals, {""}}}));
}

TEST(LabelSelector, RefusesWhatKubectlRefuses) {
    for (const char* bad :
         {"", ",", "team=a,", "=a", "team=a=b", "team>1", "team in a", "team in ()", "team in (a",
          "team notin (a b)", "!", "!team=a", "team a", "te am", "team!a"}) {
        EXPECT_THROW(parse_label_selector(bad), InvalidSelector) << bad;
    }
}

TEST(LabelSelector, MessageSaysWhereAndWhatWasExpected) {
    try {
        parse_label_selector("team=a,env>b");
        FAIL() << "parsed";
    } catch (const InvalidSelector& e) {
        EXPECT_STREQ(e.what(), "at character 11: expected '=', '==', '!=', 'in', 'notin', ',' "
                               "or the end after key \"env\"");
    }
}

TEST(LabelSelector, MatchesAsKubectlDoes) {
    const std::string labels = R"({"team":"orders","tier":3,"legacy":true})";
    auto matches = [&](const char* selector) {
        return selector_matches(parse_label_selector(selector), labels);
    };
    EXPECT_TRUE(matches("team=orders"));
    EXPECT_TRUE(matches("team=orders,tier=3"));
    EXPECT_FALSE(matches("team=orders,tier=4"));
    EXPECT_TRUE(matches("team!=payments"));
    EXPECT_FALSE(matches("team!=orders"));
    EXPECT_TRUE(matches("env!=prod")) << "no label is not equal to any value";
    EXPECT_TRUE(matches("legacy"));
    EXPECT_FALSE(matches("!legacy"));
    EXPECT_TRUE(matches("!env"));
    EXPECT_TRUE(matches("team in (payments,orders)"));
    EXPECT_FALSE(matches("team notin (payments,orders)"));
    EXPECT_TRUE(matches("env notin (prod)"));
    EXPECT_FALSE(matches("env in (prod)"));
    EXPECT_TRUE(selector_matches({}, "not json"));
    EXPECT_FALSE(selector_matches(parse_label_selector("team"), "not json"));
    EXPECT_TRUE(selector_matches(parse_label_selector("!team"), "[]"));
}

TEST(LabelSelector, EqualityRequirementsGoToTheStore) {
    LabelSelector rest;
    const auto pairs = equality_requirements(parse_label_selector("a=1,b!=2,c==3,d"), rest);
    EXPECT_EQ(pairs, (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"c", "3"}}));
    EXPECT_EQ(rest, (LabelSelector{{"b", Op::NotEquals, {"2"}}, {"d", Op::Exists, {}}}));
}

} // namespace
} // namespace kprov::cli
