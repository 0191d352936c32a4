#include "cli/json_diff.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::cli {
namespace {

using ::testing::ElementsAre;

TEST(JsonDiff, ListsChangedAddedAndRemovedLeavesInDocumentOrder) {
    const auto lines = json_diff(
        R"({"spec":{"kubernetes":{"version":"1.29.2","allowPrivilegedContainers":true},"workers":[{"name":"a","max":3}]},"status":{"x":1}})",
        R"({"spec":{"kubernetes":{"version":"1.30.1"},"workers":[{"name":"a","max":5,"volume":{"size":"80Gi"}}]},"status":{"x":2}})",
        {"status"});
    EXPECT_THAT(lines, ElementsAre("~ spec.kubernetes.version: \"1.29.2\" -> \"1.30.1\"",
                                   "- spec.kubernetes.allowPrivilegedContainers: true",
                                   "~ spec.workers[0].max: 3 -> 5",
                                   "+ spec.workers[0].volume: {\"size\":\"80Gi\"}"));
}

TEST(JsonDiff, ArraysOfDifferentLengthAndEqualDocuments) {
    EXPECT_THAT(json_diff(R"({"a":[1,2,3]})", R"({"a":[1,4]})"),
                ElementsAre("~ a[1]: 2 -> 4", "- a[2]: 3"));
    EXPECT_THAT(json_diff(R"({"a":[1]})", R"({"a":[1,{"b":true}]})"),
                ElementsAre("+ a[1]: {\"b\":true}"));
    EXPECT_TRUE(json_diff(R"({"a":{"b":[1,2]}})", R"({"a":{"b":[1,2]}})").empty());
    EXPECT_THAT(json_diff(R"({"a":1})", R"({"a":"1"})"), ElementsAre("~ a: 1 -> \"1\""));
}

TEST(JsonDiff, IgnoredPathsHideAddedAndRemovedSubtreesToo) {
    EXPECT_TRUE(json_diff(R"({"metadata":{"managedFields":[1]}})", R"({"metadata":{}})",
                          {"metadata.managedFields"})
                    .empty());
    EXPECT_TRUE(json_diff(R"({})", R"({"status":{"a":1}})", {"status"}).empty());
}

} // namespace
} // namespace kprov::cli
