// kprov diff against kprov-sim: a shoot edited behind kprov's back names the field with both
// values and exits 6; an untouched one (with what the sim's Gardener defaults) exits 0.

#include "cli/operations_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kprov::cli {
namespace {

using namespace optest;

class Diff : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override { open(GetParam()); }
};

TEST_P(Diff, AnEditedShootIsDriftAndAnUntouchedOneIsNot) {
    const auto [file, name] = runtime_file("aws");
    auto r = kprov({"provision", "-f", file, "--wait", "-o", "json", "-q"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string id = json::parse(r.out)["runtimeID"];

    r = kprov({"diff", id});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(r.out, "runtime " + id + " (shoot " + name + "): no differences\n");

    const int maximum = (*shoot(name))["spec"]["provider"]["workers"][0]["maximum"];
    json workers = (*shoot(name))["spec"]["provider"]["workers"];
    workers[0]["maximum"] = maximum + 7;
    m_gardener->patch_shoot(name, {{"spec", {{"provider", {{"workers", workers}}}}}});
    r = kprov({"diff", id});
    EXPECT_EQ(r.code, 6) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("1 difference"));
    EXPECT_THAT(r.out, HasSubstr("~ spec.provider.workers[0].maximum: " + std::to_string(maximum) +
                                 " -> " + std::to_string(maximum + 7)));
    r = kprov({"diff", "--all", "-o", "json"});
    EXPECT_EQ(r.code, 6) << r.err;
    const json all = json::parse(r.out);
    ASSERT_EQ(all.size(), 1U);
    EXPECT_EQ(all[0]["runtimeID"], id);
    EXPECT_EQ(all[0]["differences"].size(), 1U);

    EXPECT_EQ(kprov({"diff"}).code, 2) << "a RUNTIME_ID or --all";
    EXPECT_EQ(kprov({"diff", "0d2f4b37-1111-4222-8333-944455556666"}).code, 1);
}

INSTANTIATE_TEST_SUITE_P(Stores, Diff, ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres),
                         store_name);

} // namespace
} // namespace kprov::cli
