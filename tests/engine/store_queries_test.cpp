// The Store's query defaults (src/engine/store_queries.cpp), through the in-memory fake that
// does not override them; the real stores' versions are in the store contract suite.

#include "engine/store.hpp"
#include "support/fake_store.hpp"
#include "support/store_fixtures.hpp"

#include <algorithm>
#include <gtest/gtest.h>

namespace kprov::engine {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

TEST(LabelsMatch, StringsByTextOthersByTheirJson) {
    const std::string labels = R"({"team":"a","n":3,"on":true,"x":null})";
    EXPECT_TRUE(labels_match(labels, {}));
    EXPECT_TRUE(labels_match(labels, Labels{{"team", "a"}}));
    EXPECT_TRUE(labels_match(labels, Labels{{"team", "a"}, {"n", "3"}, {"on", "true"}}));
    EXPECT_TRUE(labels_match(labels, Labels{{"x", "null"}}));
    EXPECT_FALSE(labels_match(labels, Labels{{"team", "b"}}));
    EXPECT_FALSE(labels_match(labels, Labels{{"team", "a"}, {"n", "4"}}));
    EXPECT_FALSE(labels_match(labels, Labels{{"missing", ""}}));
    EXPECT_FALSE(labels_match("not json", Labels{{"team", "a"}}));
    EXPECT_TRUE(labels_match("not json", {}));
}

TEST(StoreDefaults, QueryAndPrefixLookupsWorkOnAnyStore) {
    fakes::FakeStore store;
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) {
        auto r =
            kprov::testing::small_runtime(new_uuid(), kprov::testing::k_t0 + std::chrono::hours(i));
        r.labels_json = i == 1 ? R"({"team":"x"})" : "{}";
        const auto op = kprov::testing::new_operation(r.id);
        store.insert_runtime(r, op);
        ids.push_back(r.id);
    }
    RuntimeQuery query;
    query.limit = 2;
    auto got = store.query_runtimes(query);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].id, ids[2]);
    query.labels = {{"team", "x"}};
    got = store.query_runtimes(query);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].id, ids[1]);
    EXPECT_EQ(got[0].labels_json, R"({"team":"x"})");

    auto sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(store.runtime_ids_with_prefix("", 10), sorted);
    EXPECT_EQ(store.runtime_ids_with_prefix(ids[0], 10), std::vector<std::string>{ids[0]});
    EXPECT_EQ(store.runtime_ids_with_prefix("", 1).size(), 1u);
    const auto op_ids = store.operation_ids_with_prefix("", 10);
    EXPECT_EQ(op_ids.size(), 3u);
    EXPECT_TRUE(std::is_sorted(op_ids.begin(), op_ids.end()));
}

} // namespace
} // namespace kprov::engine
