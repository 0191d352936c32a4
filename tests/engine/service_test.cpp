// The engine service's shared rules: one operation in progress per runtime (decided by the
// store), the tenant of a request (deliberate difference 3).

#include "engine_fixture.hpp"

#include <functional>
#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using ::testing::HasSubstr;

class Service : public EngineTest {};

TEST_F(Service, EveryStartIsRefusedWhileTheRuntimeHasAnOperationInProgress) {
    const auto started = provision();
    pass(started.operation.id); // the shoot exists, the provisioning goes on
    const std::string id = started.runtime_id;
    const RequestContext other{"tenant-b", ""};
    EXPECT_THROW(service().deprovision(id, other), OperationInProgress);
    EXPECT_THROW(
        service().upgrade_shoot(
            id, parse_upgrade_input({{"gardenerConfig", nlohmann::json::object()}}), other),
        OperationInProgress);
    EXPECT_THROW(service().hibernate(id, other), OperationInProgress);
    EXPECT_THROW(service().wake_up(id, other), OperationInProgress);
    try {
        service().deprovision(id, other);
    } catch (const OperationInProgress& e) {
        EXPECT_EQ(std::string(e.what()), "cannot start new operation for " + id +
                                             " Runtime while previous one is in progress");
    }
    EXPECT_EQ(store.operations_of(id).size(), 1u);
    EXPECT_EQ(runtime(id).tenant, "tenant-a"); // a refused request changes nothing
}

TEST_F(Service, AnotherTenantRewritesTheRuntimesTenantAndTheHistorySaysSo) {
    std::vector<std::string> logged;
    ports.log = [&](LogLevel, const std::string& message) {
        logged.push_back(message);
    };
    const std::string id = provisioned_runtime();
    const auto started = service().hibernate(id, {"tenant-moved", "sub-a"});
    ASSERT_TRUE(started.tenant_change);
    EXPECT_EQ(started.tenant_change->from, "tenant-a");
    EXPECT_EQ(started.tenant_change->to, "tenant-moved");
    EXPECT_TRUE(started.tenant_change->recorded);
    EXPECT_EQ(runtime(id).tenant, "tenant-moved");

    const auto history = store.transitions_of(started.operation.id);
    ASSERT_EQ(history.size(), 1u);
    EXPECT_EQ(history[0].from_stage, "");
    EXPECT_EQ(history[0].to_stage, "HibernatingShoot");
    EXPECT_THAT(history[0].message, HasSubstr("changed from \"tenant-a\" to \"tenant-moved\""));
    ASSERT_EQ(logged.size(), 1u);
    EXPECT_THAT(logged[0], HasSubstr(started.operation.id));

    // The operation itself is untouched and due for the workers.
    const Operation op = operation(started.operation.id);
    EXPECT_EQ(op.stage, "HibernatingShoot");
    EXPECT_FALSE(op.lease);
    EXPECT_EQ(executor().run_due(k_worker, 10).size(), 1u);
}

TEST_F(Service, TheSameOrNoTenantChangesNothing) {
    const std::string id = provisioned_runtime();
    EXPECT_FALSE(service().hibernate(id, context).tenant_change);
    EXPECT_TRUE(store.transitions_of(store.last_operation(id)->id).empty());
    store.put_operation([&] {
        Operation op = *store.last_operation(id);
        op.state = OperationState::Succeeded;
        return op;
    }());
    EXPECT_FALSE(service().wake_up(id, {"", ""}).tenant_change);
    EXPECT_EQ(runtime(id).tenant, "tenant-a");
}

TEST_F(Service, StrictTenantsRefuseAnotherTenant) {
    options.tenant_strict = true;
    const std::string id = provisioned_runtime();
    EXPECT_THROW(service().deprovision(id, {"intruder", ""}), TenantMismatch);
    EXPECT_EQ(store.operations_of(id).size(), 1u);
    EXPECT_EQ(runtime(id).tenant, "tenant-a");
    EXPECT_NO_THROW(service().deprovision(id, context));
}

TEST_F(Service, ProvisionHandsOnTheShootBuildersWarnings) {
    options.shoot.maintenance_windows.emplace(); // a production runtime in a region without one
    auto doc = provision_document();
    doc["clusterConfig"]["gardenerConfig"]["purpose"] = "production";
    const auto started = provision(doc);
    ASSERT_EQ(started.warnings.size(), 1u);
    EXPECT_THAT(started.warnings[0], HasSubstr("no maintenance window"));
    EXPECT_EQ(started.runtime_id, started.operation.cluster_id);
}

TEST_F(Service, LegacyApiOnKubernetes134IsRefusedAndNothingStored) {
    options.conversion.legacy_api = true; // Gardener refuses cloudProfileName from 1.34
    auto doc = provision_document();
    doc["clusterConfig"]["gardenerConfig"]["kubernetesVersion"] = "1.34.1";
    EXPECT_THROW(provision(doc), ValidationError);
    EXPECT_TRUE(store.list_runtimes({}).empty());
    EXPECT_EQ(gardener.calls("create"), 0);
}

TEST_F(Service, TheSameProvisioningAgainAnswersWithTheFirstOneAndAnotherIsRefused) {
    const auto first = provision(provision_document("shoot-x"));
    auto again = provision(provision_document("shoot-x"));
    EXPECT_TRUE(again.already_requested);
    EXPECT_EQ(again.runtime_id, first.runtime_id);
    EXPECT_EQ(again.operation.id, first.operation.id);
    EXPECT_EQ(store.list_runtimes({}).size(), 1u);

    // Key order does not count; another tenant or another configuration does.
    auto reordered = provision_document("shoot-x");
    reordered["runtimeInput"]["labels"] = {{"b", 2}, {"a", 1}};
    auto document = provision_document("shoot-y");
    document["runtimeInput"]["labels"] = {{"a", 1}, {"b", 2}};
    const auto labelled = provision(document);
    document["runtimeInput"]["labels"] = {{"b", 2}, {"a", 1}};
    EXPECT_EQ(provision(document).operation.id, labelled.operation.id);

    auto changed = provision_document("shoot-x");
    changed["clusterConfig"]["gardenerConfig"]["autoScalerMax"] = 9;
    try {
        provision(changed);
        ADD_FAILURE() << "a different request for a taken name was accepted";
    } catch (const ShootNameTaken& e) {
        EXPECT_EQ(e.owner(), first.runtime_id);
    }
    EXPECT_THROW(service().provision(parse_provision_input(provision_document("shoot-x")),
                                     {"another-tenant", "sub-a"}),
                 ShootNameTaken);
    EXPECT_EQ(store.list_runtimes({}).size(), 2u);
}

TEST_F(Service, OperationsOnAShootOfAnotherRuntimeAreRefusedNamingTheOwner) {
    const std::string id = provisioned_runtime();
    gardener.finish_deletion("shoot1");
    gardener.add_shoot(
        {{"metadata",
          {{"name", "shoot1"},
           {"annotations", {{"kcp.provisioner.kyma-project.io/runtime-id", "other-runtime"}}}}}});
    const int writes = gardener.calls("patch") + gardener.calls("update");
    UpgradeShootInput upgrade;
    upgrade.gardener.auto_scaler_max = 5;
    for (const auto& start : std::vector<std::function<void()>>{
             [&] { service().hibernate(id, context); }, [&] { service().wake_up(id, context); },
             [&] {
                 service().upgrade_shoot(id, upgrade, context);
             }}) {
        try {
            start();
            ADD_FAILURE() << "an operation on another runtime's shoot was started";
        } catch (const ForeignShoot& e) {
            EXPECT_THAT(e.what(), HasSubstr("belongs to runtime other-runtime"));
        }
    }
    EXPECT_EQ(store.operations_of(id).size(), 1u);
    EXPECT_EQ(gardener.calls("patch") + gardener.calls("update"), writes);
    EXPECT_FALSE(service().admin_kubeconfig(id, "shoot1"));
}

// Deliberate difference 7: other clouds' members are ignored, and the caller and the log say so.
TEST_F(Service, ProvisionAndUpgradeNameTheIgnoredProviderMembers) {
    std::vector<std::string> logged;
    ports.log = [&](LogLevel level, const std::string& message) {
        if (level == LogLevel::Warning)
            logged.push_back(message);
    };
    auto doc = provision_document();
    doc["clusterConfig"]["gardenerConfig"]["providerSpecificConfig"]["azureConfig"] = {
        {"vnetCidr", "10.250.0.0/16"}};
    const auto started = provision(doc);
    const std::string warning = "clusterConfig.gardenerConfig.providerSpecificConfig.azureConfig "
                                "is ignored: provider \"gcp\" uses gcpConfig";
    EXPECT_THAT(started.warnings, ::testing::ElementsAre(warning));
    EXPECT_THAT(logged, ::testing::ElementsAre("runtime " + started.runtime_id + ": " + warning));
    EXPECT_TRUE(
        std::holds_alternative<GcpConfig>(runtime(started.runtime_id).gardener.provider_config));

    const std::string id = provisioned_runtime("shoot2");
    const auto upgraded = service().upgrade_shoot(
        id, parse_upgrade_input(nlohmann::json::parse(R"({"gardenerConfig": {
            "providerSpecificConfig": {"gcpConfig": {"zones": ["europe-west3-c"]},
                                       "awsConfig": {"vpcCidr": "10.0.0.0/16", "awsZones": []}}}})")),
        context);
    EXPECT_THAT(upgraded.warnings,
                ::testing::ElementsAre("gardenerConfig.providerSpecificConfig.awsConfig is "
                                       "ignored: the runtime runs on gcp and uses gcpConfig"));
    EXPECT_EQ(logged.size(), 2u);
}

TEST_F(Service, ProvisionWritesTheRequestsLifecycleWithTheRuntime) {
    auto input = read_provision_input(provision_document("shoot-l"), options.conversion);
    input.lifecycle =
        LifecycleRequest{true, std::chrono::hours(2), "me@host (lifecycle of rt.yaml)"};
    const auto started = service().provision(input, context);
    const auto created = store.find_runtime(started.runtime_id)->creation_timestamp;
    EXPECT_EQ(store.lifecycle_of(started.runtime_id),
              (RuntimeLifecycle{true, created + std::chrono::hours(2)}));
    const auto events = store.events_of(started.runtime_id);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, "Protect");
    EXPECT_EQ(events[0].message,
              "protected against deprovisioning by me@host (lifecycle of rt.yaml)");
    EXPECT_EQ(events[1].kind, "Lifetime");
    EXPECT_EQ(events[1].message, "lifetime 2h set by me@host (lifecycle of rt.yaml): "
                                 "deprovisioned after 2026-11-30T12:00:00Z");
    EXPECT_EQ(lifetime_expiry(created, std::chrono::hours(2)), created + std::chrono::hours(2));
}

TEST_F(Service, ARepeatedProvisioningGivesItsRuntimeTheLifecycleOnce) {
    const auto first = provision(provision_document("shoot-r"));
    EXPECT_EQ(store.lifecycle_of(first.runtime_id), RuntimeLifecycle{});
    auto input = read_provision_input(provision_document("shoot-r"), options.conversion);
    input.lifecycle = LifecycleRequest{true, std::nullopt, "me@host"};
    EXPECT_TRUE(service().provision(input, context).already_requested);
    EXPECT_TRUE(store.lifecycle_of(first.runtime_id).is_protected);
    EXPECT_TRUE(service().provision(input, context).already_requested);
    EXPECT_EQ(store.events_of(first.runtime_id).size(), 1u) << "the same again changes nothing";
}

TEST_F(Service, ProvisioningWithoutATenantIsRefusedBeforeAnythingIsWritten) {
    EXPECT_THROW(
        service().provision(read_provision_input(provision_document("shoot-t"), options.conversion),
                            {"", "sub-a"}),
        TenantMissing);
    EXPECT_TRUE(store.list_runtimes({}).empty());
    EXPECT_NO_THROW(require_tenant({"tenant-a", ""}));
    try {
        require_tenant({});
        ADD_FAILURE() << "an empty tenant was accepted";
    } catch (const TenantMissing& e) {
        EXPECT_STREQ(e.what(), "tenant header is empty");
    }
}

TEST_F(Service, TheShootNameOutcomeSaysWhatProvisionWouldAnswer) {
    const auto [plan, owner] = service().plan_provision(
        read_provision_input(provision_document("shoot-o"), options.conversion), context,
        k_placeholder_ids);
    EXPECT_FALSE(owner);
    EXPECT_EQ(shoot_name_outcome(owner, plan.runtime), "would be created");
    EXPECT_THAT(shoot_name_outcome(ShootNameOwner{"rt-1", true}, plan.runtime),
                HasSubstr("already requested: runtime rt-1 is this request's"));
    const std::string refused = shoot_name_outcome(ShootNameOwner{"rt-1", false}, plan.runtime);
    EXPECT_EQ(refused, std::string("refused: ") + shoot_name_refusal("rt-1", plan.runtime).what());
    EXPECT_THAT(refused, HasSubstr("belongs to live runtime rt-1, made by another request"));
}

} // namespace
} // namespace kprov::engine::test
