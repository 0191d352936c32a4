// The operation commands and protect/unprotect on every runtime a label selector matches (issue
// 21, "Bulk by label"), and `kprov list`'s EXPIRES column and --expired. Against kprov-sim, on
// SQLite and PostgreSQL.

#include "cli/bulk_runner.hpp"
#include "cli/operations_fixture.hpp"

#include <algorithm>
#include <csignal>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>

namespace kprov::cli {
namespace {

using namespace optest;
using ::testing::Not;
using ::testing::StartsWith;

class BulkBase : public OperationsBase, public ::testing::WithParamInterface<StoreKind> {
protected:
    void SetUp() override { open(GetParam()); }

    // A runtime provisioned (with --wait unless `wait` is false) from a gcp runtime file whose
    // runtime is named as its shoot and carries `labels` and, if given, a lifecycle block.
    // Returns its id and shoot name.
    std::pair<std::string, std::string> provisioned(const json& labels, bool wait = true,
                                                    const json& lifecycle = nullptr) {
        const auto [file, shoot] = runtime_file("gcp");
        json document = read_runtime_file(file);
        document["runtimeInput"]["name"] = shoot;
        document["runtimeInput"]["labels"] = labels;
        if (!lifecycle.is_null())
            document["lifecycle"] = lifecycle;
        std::ofstream(file) << document.dump();
        std::vector<std::string> args = {"provision", "-f", file, "-o", "json", "-q"};
        if (wait)
            args.push_back("--wait");
        const auto r = kprov(args);
        EXPECT_EQ(r.code, 0) << r.err;
        return {json::parse(r.out).value("runtimeID", ""), shoot};
    }

    bool hibernation_enabled(const std::string& shoot_name) {
        const auto live = shoot(shoot_name);
        return live && live->value("/spec/hibernation/enabled"_json_pointer, false);
    }
};

class BulkByLabel : public BulkBase {};

// Every line of a bulk command's stderr is whole: a runtime's progress line (its name first) or
// one of kprov's own ("kprov: ..."), never two mixed.
void expect_whole_lines(const std::string& err, const std::vector<std::string>& names) {
    std::istringstream in(err);
    for (std::string line; std::getline(in, line);) {
        const bool known =
            line.rfind("kprov: ", 0) == 0 ||
            std::any_of(names.begin(), names.end(), [&line](const std::string& name) {
                return line.rfind(name + "  ", 0) == 0 &&
                       line.find("  ", name.size() + 2) == std::string::npos;
            });
        EXPECT_TRUE(known) << "a mixed or unknown line: \"" << line << "\"";
    }
}

// Whether a line of `text` starts with `prefix` and contains `part`.
bool has_line(const std::string& text, const std::string& prefix, const std::string& part) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0 && line.find(part) != std::string::npos)
            return true;
    return false;
}

// One setup of twenty labelled runtimes (and one outsider) serves the whole bulk story:
// dry run, parallel hibernation, a failing wake-up, protect -l, upgrade-shoot -l and the bulk
// deprovisioning that protection holds against.
TEST_P(BulkByLabel, TwentyRuntimesByLabelInParallelWithProtectionHoldingAgainstDeprovision) {
    constexpr int k_count = 20;
    std::vector<std::string> ids, shoots;
    for (int i = 0; i < k_count; ++i) {
        json labels = {{"team", "ci"}};
        if (i == 1 || i == 2)
            labels["keep"] = "yes";
        const auto [id, name] = provisioned(labels);
        ASSERT_FALSE(id.empty());
        ids.push_back(id);
        shoots.push_back(name);
    }
    const auto [outsider, outsider_shoot] = provisioned({{"team", "other"}});

    // --dry-run lists every runtime and changes nothing.
    auto r = kprov({"hibernate", "-l", "team=ci", "--dry-run", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    json listed = json::parse(r.out);
    ASSERT_EQ(listed.size(), static_cast<std::size_t>(k_count));
    std::set<std::string> seen;
    for (const auto& item : listed) {
        EXPECT_EQ(item["action"], "hibernate");
        seen.insert(item["runtimeID"].get<std::string>());
    }
    EXPECT_EQ(seen, std::set<std::string>(ids.begin(), ids.end()));
    EXPECT_THAT(r.err, HasSubstr("nothing was changed"));
    for (const auto& id : ids)
        EXPECT_EQ(m_store->operations_of(id).size(), 1U) << "a dry run starts nothing";

    // Hibernation takes seconds in the simulator: run one at a time, the twenty would take
    // twenty times that; in parallel, each starts before any ends.
    sim_post("/sim/settings", {{"hibernateSeconds", 4}});
    r = kprov({"hibernate", "-l", "team=ci", "--wait"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("20 runtimes: 20 succeeded"));
    expect_whole_lines(r.err, shoots);
    Timestamp last_start = Timestamp::min(), first_end = Timestamp::max();
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto op = expect_succeeded(ids[i], OperationType::Hibernate, {"WaitForHibernation"});
        EXPECT_THAT(r.out, HasSubstr(op.id));
        EXPECT_TRUE(has_line(r.err, shoots[i] + " ", "Hibernate operation " + op.id + " started"))
            << shoots[i];
        last_start = std::max(last_start, op.start_timestamp);
        if (op.end_timestamp)
            first_end = std::min(first_end, *op.end_timestamp);
        EXPECT_TRUE(hibernation_enabled(shoots[i])) << shoots[i];
    }
    EXPECT_LT(last_start, first_end) << "every hibernation started before the first one ended";
    EXPECT_FALSE(hibernation_enabled(outsider_shoot)) << "the selector did not match it";
    EXPECT_EQ(m_store->operations_of(outsider).size(), 1U);
    sim_post("/sim/settings", k_fast_sim);

    // One wake-up fails in Gardener: the others succeed, and the exit code says one failed.
    sim_post("/sim/shoots/garden-" + std::string(k_project) + "/" + shoots[0] + "/fail",
             {{"type", "Reconcile"}, {"codes", {"ERR_INFRA_QUOTA_EXCEEDED"}}});
    r = kprov({"wake-up", "-l", "team=ci", "--wait", "-o", "json"});
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_THAT(r.err, HasSubstr("19 succeeded, 1 failed"));
    json results = json::parse(r.out);
    ASSERT_EQ(results.size(), static_cast<std::size_t>(k_count));
    for (const auto& item : results) {
        EXPECT_EQ(item["operation"], "WakeUp");
        EXPECT_EQ(item["state"], item["runtimeID"] == ids[0] ? "Failed" : "Succeeded") << item;
    }

    // protect -l, then upgrade-shoot -l applies one file to each runtime it selects.
    r = kprov({"protect", "-l", "keep=yes"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("runtime " + ids[1] + " protected\n"));
    EXPECT_THAT(r.out, HasSubstr("runtime " + ids[2] + " protected\n"));
    EXPECT_TRUE(m_store->lifecycle_of(ids[1]).is_protected);
    EXPECT_FALSE(m_store->lifecycle_of(ids[3]).is_protected);
    r = kprov({"upgrade-shoot", "-l", "keep=yes", "-f", k_examples + "upgrade.yaml", "--wait", "-o",
               "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    results = json::parse(r.out);
    ASSERT_EQ(results.size(), 2U);
    for (const auto& item : results) {
        EXPECT_EQ(item["operation"], "UpgradeShoot");
        EXPECT_EQ(item["state"], "Succeeded");
    }
    EXPECT_EQ(m_store->find_runtime(ids[1])->gardener.auto_scaler_max, 12);

    // Bulk deprovisioning asks first: without a terminal, only --yes answers.
    r = kprov({"deprovision", "-l", "team=ci"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("add --yes"));
    EXPECT_THAT(r.err, HasSubstr("18 runtimes"));
    r = kprov({"deprovision", "-l", "team=ci", "--dry-run"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("refused: runtime " + ids[1] + " is protected"));
    EXPECT_THAT(r.err, HasSubstr("deprovision 18 of 20 runtimes, 2 refused"));
    for (const auto& id : ids)
        EXPECT_FALSE(m_store->find_runtime(id)->deleted);

    // Protection holds: the protected runtimes are refused and reported, the others go.
    r = kprov({"deprovision", "-l", "team=ci", "--yes", "--wait", "-o", "json"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("20 runtimes: 18 succeeded, 2 refused"));
    results = json::parse(r.out);
    ASSERT_EQ(results.size(), static_cast<std::size_t>(k_count));
    for (const auto& item : results)
        if (item["runtimeID"] == ids[1] || item["runtimeID"] == ids[2]) {
            EXPECT_EQ(item["state"], "Refused");
            EXPECT_THAT(item["message"].get<std::string>(), HasSubstr("kprov unprotect"));
        }
    for (int i = 0; i < k_count; ++i) {
        const bool kept = i == 1 || i == 2;
        EXPECT_EQ(m_store->find_runtime(ids[i])->deleted, !kept) << i;
        EXPECT_EQ(shoot(shoots[i]).has_value(), kept) << i;
    }
    EXPECT_EQ(m_store->operations_of(ids[1]).size(), 4U) << "no deprovisioning was started";
    EXPECT_FALSE(m_store->find_runtime(outsider)->deleted);

    r = kprov({"unprotect", "-l", "keep=yes", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out).size(), 2U);
    r = kprov({"deprovision", "-l", "team=ci", "--yes", "--wait", "-q"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(m_store->find_runtime(ids[1])->deleted);
    EXPECT_FALSE(m_store->find_runtime(outsider)->deleted);
}

TEST_P(BulkByLabel, RuntimeIdOrSelectorExactlyOneAndASelectorMatchingNothingIsNoError) {
    auto r = kprov({"hibernate"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("hibernate needs RUNTIME_ID or -l SELECTOR"));
    r = kprov({"deprovision", "0d2f4b37-1111-4222-8333-944455556666", "-l", "team=ci"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("RUNTIME_ID or -l SELECTOR, not both"));
    r = kprov({"protect"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("protect needs RUNTIME_ID or -l SELECTOR"));
    r = kprov({"wake-up", "-l", "team in (ci"});
    EXPECT_EQ(r.code, 2);
    EXPECT_THAT(r.err, HasSubstr("is not a label selector"));
    r = kprov({"upgrade-shoot", "-l", "team=ci", "-f", k_examples + "upgrade.yaml", "--dry-run",
               "--detailed-exitcode"});
    EXPECT_EQ(r.code, 1) << "a usage error, with --detailed-exitcode";
    EXPECT_THAT(r.err, HasSubstr("give RUNTIME_ID instead"));

    // kubectl's "No resources found": exit 0, said on stderr, an empty array for machines.
    const auto [id, name] = provisioned({{"team", "ci"}}, false);
    r = kprov({"hibernate", "-l", "team=nobody", "--wait"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr("no runtimes match -l team=nobody; nothing was done"));
    r = kprov({"deprovision", "-l", "team!=ci", "-o", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json::parse(r.out), json::array());
    r = kprov({"unprotect", "-l", "team=nobody"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(m_store->operations_of(id).size(), 1U);

    // A dry run of one runtime lists it the same way: refused while its provisioning runs.
    r = kprov({"hibernate", id, "--dry-run", "-o", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    const json listed = json::parse(r.out);
    ASSERT_EQ(listed.size(), 1U);
    EXPECT_EQ(listed[0]["runtimeID"], id);
    EXPECT_EQ(listed[0]["action"], "refused");
    EXPECT_THAT(listed[0]["reason"].get<std::string>(), HasSubstr("is in progress"));
    // Without --wait, each operation runs its first pass, as a single one does; the one in
    // progress refuses another (exit 5).
    r = kprov({"hibernate", "-l", "team=ci"});
    EXPECT_EQ(r.code, 5) << r.err << r.out;
    EXPECT_THAT(r.err, HasSubstr("1 refused (operation in progress)"));
}

INSTANTIATE_TEST_SUITE_P(Stores, BulkByLabel,
                         ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres), store_name);

// The summary and the exit code say what became of every runtime, the worst outcome deciding.
TEST(BulkSummary, TheExitCodeIsZeroOnlyWhenEveryRuntimeSucceeded) {
    using Kind = BulkResult::Kind;
    auto results = [](std::vector<Kind> kinds) {
        std::vector<BulkResult> out;
        for (const auto kind : kinds)
            out.push_back({{"id", "name", "shoot"}, kind, std::nullopt, {}});
        return out;
    };
    EXPECT_EQ(bulk_exit_code(results({Kind::Succeeded, Kind::Succeeded}), 0), 0);
    EXPECT_EQ(bulk_exit_code(results({Kind::Started, Kind::Succeeded}), 0), 0);
    EXPECT_EQ(bulk_exit_code(results({}), 0), 0);
    EXPECT_EQ(bulk_exit_code(results({Kind::Succeeded, Kind::Unfinished}), 0), 4);
    EXPECT_EQ(bulk_exit_code(results({Kind::Unfinished, Kind::InProgress}), 0), 5);
    EXPECT_EQ(bulk_exit_code(results({Kind::InProgress, Kind::Refused}), 0), 1);
    EXPECT_EQ(bulk_exit_code(results({Kind::Error, Kind::Failed, Kind::Refused}), 0), 3);
    EXPECT_EQ(bulk_exit_code(results({Kind::Failed, Kind::Unfinished}), SIGINT), 130);
    EXPECT_EQ(bulk_exit_code(results({Kind::Succeeded}), SIGTERM), 0) << "all done anyway";

    EXPECT_EQ(summary_text(results({Kind::Succeeded, Kind::Failed, Kind::Succeeded, Kind::Refused,
                                    Kind::InProgress})),
              "5 runtimes: 2 succeeded, 1 failed, 1 refused, 1 refused (operation in progress)");
    EXPECT_EQ(summary_text(results({Kind::Started})), "1 runtime: 1 started");
}

class ListExpiry : public BulkBase {};

// The line of `table` that shows runtime `id`; "" when none does.
std::string line_of(const std::string& table, const std::string& id) {
    std::istringstream in(table);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(id, 0) == 0)
            return line;
    return {};
}

TEST_P(ListExpiry, WideShowsWhenRuntimesExpireAndExpiredListsThoseWhoseLifetimePassed) {
    const auto [lasting, lasting_shoot] = provisioned({{"k", "v"}}, false, {{"lifetime", "10h"}});
    const auto [forever, forever_shoot] = provisioned({{"k", "v"}}, false);
    const auto [ended, ended_shoot] = provisioned({{"k", "v"}}, false);
    const Timestamp now =
        std::chrono::time_point_cast<Timestamp::duration>(std::chrono::system_clock::now());
    m_store->set_expiry(ended, now - std::chrono::hours(1), {now, "Lifetime", "test"});

    auto r = kprov({"list", "-o", "wide"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("EXPIRES"));
    EXPECT_THAT(line_of(r.out, lasting), HasSubstr("   in 9h   "));
    EXPECT_THAT(line_of(r.out, forever), HasSubstr("   -   "));
    EXPECT_THAT(line_of(r.out, ended), HasSubstr("   expired   "));
    EXPECT_THAT(kprov({"list"}).out, Not(HasSubstr("EXPIRES"))) << "wide only";

    r = kprov({"list", "--expired", "-o", "name"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, ended + "\n");
    r = kprov({"list", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    for (const auto& item : json::parse(r.out)) {
        const std::string id = item["runtime"]["id"];
        const json& expires = item["lifecycle"]["expiresAt"];
        EXPECT_EQ(expires.is_null(), id == forever) << item["lifecycle"];
        EXPECT_EQ(item["lifecycle"]["protected"], false);
    }

    // A protected runtime outlives its lifetime: still listed as expired, and why it is kept.
    ASSERT_EQ(kprov({"protect", ended}).code, 0);
    r = kprov({"list", "--expired", "-o", "wide"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(line_of(r.out, ended), HasSubstr("expired, protected"));
    EXPECT_EQ(line_of(r.out, lasting), "");
    r = kprov({"list", "--expired", "-l", "k=other"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, HasSubstr("no runtimes match"));
}

// Labels in `list -o wide` as kubectl shows them (issue 33): "k=v,k=v", "<none>" for none.
TEST_P(ListExpiry, WideShowsLabelsAsKeyEqualsValue) {
    const auto [labelled, labelled_shoot] = provisioned({{"env", "trial"}, {"team", "ci"}}, false);
    const auto [bare, bare_shoot] = provisioned(json::object(), false);

    const auto r = kprov({"list", "-o", "wide"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("LABELS"));
    const std::string line = line_of(r.out, labelled);
    EXPECT_THAT(line, ::testing::EndsWith("   env=trial,team=ci")) << r.out;
    EXPECT_THAT(line_of(r.out, bare), ::testing::EndsWith("   <none>")) << r.out;
    EXPECT_THAT(r.out, Not(HasSubstr("{"))) << "labels as JSON";
}

INSTANTIATE_TEST_SUITE_P(Stores, ListExpiry,
                         ::testing::Values(StoreKind::Sqlite, StoreKind::Postgres), store_name);

} // namespace
} // namespace kprov::cli
