// The lifecycle-manager backend against fakes (kyma-lifecycle-manager.md §6): the mapping of
// kymaConfig onto a Kyma, the request-time refusals, the stages of provisioning and
// deprovisioning, and the Secret refresher. tests/cli/klm_test.cpp runs the same paths against
// kprov-sim's KCP.

#include "engine/run/kyma_secret_refresher.hpp"
#include "engine_fixture.hpp"
#include "support/fake_kcp.hpp"

#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

class KlmStages : public EngineTest {
protected:
    KlmStages() {
        ports.lifecycle_manager = &kcp;
        options.kyma.installer_setting = "lifecycle-manager";
        options.conversion.kyma_requires_runtime_agent = false;
        options.kyma.klm.deletion_timeout = 10min;
    }

    static nlohmann::json modules_document(const std::string& shoot = "shoot1") {
        auto doc = provision_document(shoot);
        doc["kymaConfig"] = nlohmann::json::parse(R"({
          "version": "fast",
          "components": [
            {"component": "istio", "namespace": "kyma-system"},
            {"component": "serverless", "namespace": "kyma-system"},
            {"component": "istio", "namespace": "kyma-system"},
            {"component": "keda", "namespace": "kyma-system"}
          ]
        })");
        doc["runtimeInput"]["labels"] = {{"kyma-project.io/instance-id", "inst-1"}};
        return doc;
    }

    // Provisions a runtime with Kyma until it waits for the Kyma to be Ready.
    StartedOperation provision_until_waiting(const std::string& shoot = "shoot1") {
        const auto started = provision(modules_document(shoot));
        pass(started.operation.id);
        gardener.succeed(shoot);
        clock.advance(20s);
        pass(started.operation.id);
        EXPECT_EQ(operation(started.operation.id).stage, "WaitingForKymaReady");
        return started;
    }

    // A runtime whose provisioning succeeded with its Kyma Ready.
    std::string provisioned_with_kyma() {
        const auto started = provision_until_waiting();
        kcp.set_all(kyma_name_of(started.runtime_id), "Ready");
        clock.advance(5s);
        EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
        return started.runtime_id;
    }

    std::vector<std::string> messages_of(const std::string& operation_id) {
        std::vector<std::string> out;
        for (const auto& t : store.transitions_of(operation_id))
            out.push_back(t.message);
        return out;
    }

    fakes::FakeKcp kcp;
};

TEST(KymaLifecycle, NamesChannelsAndModules) {
    EXPECT_EQ(kyma_name_of("AB12-Cd"), "ab12-cd");
    EXPECT_EQ(kyma_secret_name_of("AB12-Cd"), "kubeconfig-ab12-cd"); // a Secret name is lower-case
    EXPECT_TRUE(is_kyma_channel("regular"));
    EXPECT_TRUE(is_kyma_channel("fast"));
    EXPECT_FALSE(is_kyma_channel("none"));
    EXPECT_FALSE(is_kyma_channel("1.24.11"));
    EXPECT_FALSE(is_kyma_channel("ab"));
    EXPECT_FALSE(is_kyma_channel("Fast"));
    EXPECT_FALSE(is_kyma_channel(std::string(33, 'a')));
    KymaConfig config;
    config.release.version = "1.24.11";
    for (const char* name : {"istio", "keda", "istio"})
        config.components.push_back({"", name, "kyma-system", std::nullopt, {}, 0});
    KlmOptions klm;
    klm.default_channel = "regular";
    EXPECT_EQ(kyma_channel_of(config, klm), "regular");
    config.release.version = "experimental";
    EXPECT_EQ(kyma_channel_of(config, klm), "experimental");
    EXPECT_THAT(kyma_modules_of(config),
                ElementsAre(KymaModule{"istio", ""}, KymaModule{"keda", ""}));
}

// §1.3: the internal and beta labels come from the runtime's labels; the Secret's kyma-name
// label equals the Kyma's (lower-case) name, which is what KLM selects on.
TEST(KymaLifecycle, ModuleLabelsComeFromTheRuntimesLabels) {
    Runtime runtime;
    runtime.id = "AB12-Cd";
    runtime.gardener.provider = "gcp";
    runtime.labels_json = R"({"operator.kyma-project.io/internal": "TRUE",
                              "operator.kyma-project.io/beta": false, "team": "a"})";
    const KymaResource kyma = build_kyma_resource(runtime, "", KlmOptions{});
    EXPECT_EQ(kyma.name, "ab12-cd");
    EXPECT_EQ(kyma.labels.at("operator.kyma-project.io/internal"), "true");
    EXPECT_EQ(kyma.labels.at("operator.kyma-project.io/beta"), "false");
    EXPECT_EQ(kyma.labels.count("team"), 0u);
    runtime.labels_json = R"({"team": "a"})";
    EXPECT_EQ(build_kyma_resource(runtime, "", KlmOptions{})
                  .labels.count("operator.kyma-project.io/internal"),
              0u);
    const KymaAccessSecret secret = build_access_secret(runtime, "kubeconfig", Timestamp{});
    EXPECT_EQ(secret.name, "kubeconfig-ab12-cd");
    EXPECT_EQ(secret.labels.at("operator.kyma-project.io/kyma-name"), "ab12-cd");
    EXPECT_EQ(secret.labels.at("kyma-project.io/runtime-id"), "AB12-Cd");
}

TEST(KymaLifecycle, EveryFieldAKymaCannotSayIsNamed) {
    KymaConfig config;
    config.release.version = "1.24.11";
    config.profile = KymaProfile::Production;
    config.global = {{{"global.domainName", "x", false}}, "Merge"};
    config.components.push_back({"", "istio", "istio-system", std::nullopt, {}, 1});
    config.components.push_back({"",
                                 "keda",
                                 "kyma-system",
                                 "https://x.example/keda.tgz",
                                 {{{"a", "b", false}}, "Replace"},
                                 2});
    std::vector<std::string> paths;
    for (const auto& p : unrepresentable_kyma_fields(config))
        paths.push_back(p.path);
    EXPECT_THAT(paths,
                ElementsAre("kymaConfig.version", "kymaConfig.profile", "kymaConfig.configuration",
                            "kymaConfig.conflictStrategy", "kymaConfig.components[0].namespace",
                            "kymaConfig.components[1].sourceURL",
                            "kymaConfig.components[1].configuration",
                            "kymaConfig.components[1].conflictStrategy"));
    KymaConfig plain;
    plain.release.version = "regular";
    plain.components.push_back({"", "istio", "kyma-system", std::nullopt, {}, 1});
    EXPECT_THAT(unrepresentable_kyma_fields(plain), IsEmpty());
}

TEST(KymaLifecycle, ProgressNamesWhatIsNotReady) {
    KymaState state;
    state.spec_modules = {"istio", "keda", "serverless"};
    EXPECT_EQ(kyma_progress(state), "0/3 modules ready");
    state.modules = {{"istio", "Ready", ""},
                     {"keda", "Processing", "installing"},
                     {"serverless", "Error", "no ModuleReleaseMeta"}};
    EXPECT_EQ(kyma_progress(state), "1/3 modules ready: keda Processing, serverless Error");
    EXPECT_EQ(modules_not_ready(state),
              "keda (Processing: installing), serverless (Error: no ModuleReleaseMeta)");
    state.modules.pop_back();
    EXPECT_EQ(modules_not_ready(state),
              "keda (Processing: installing), serverless (no status yet)");
}

TEST_F(KlmStages, ProvisioningWritesTheSecretAndTheKymaAndSucceedsWhenItIsReady) {
    const auto started = provision_until_waiting();
    const std::string name = kyma_name_of(started.runtime_id);
    ASSERT_EQ(kcp.secrets.count("kubeconfig-" + started.runtime_id), 1u);
    const auto& secret = kcp.secrets.at("kubeconfig-" + started.runtime_id);
    EXPECT_THAT(secret.labels, Contains(Pair("operator.kyma-project.io/kyma-name", name)));
    EXPECT_THAT(secret.labels,
                Contains(Pair("operator.kyma-project.io/managed-by", "lifecycle-manager")));
    EXPECT_FALSE(secret.kubeconfig.empty());
    const auto& kyma = kcp.applied.at(name);
    EXPECT_EQ(kyma.channel, "fast");
    EXPECT_THAT(kyma.modules, ElementsAre(KymaModule{"istio", ""}, KymaModule{"serverless", ""},
                                          KymaModule{"keda", ""}));
    EXPECT_THAT(kyma.labels, Contains(Pair("kyma-project.io/runtime-id", started.runtime_id)));
    EXPECT_THAT(kyma.labels, Contains(Pair("kyma-project.io/global-account-id", "tenant-a")));
    EXPECT_THAT(kyma.labels, Contains(Pair("kyma-project.io/subaccount-id", "sub-a")));
    EXPECT_THAT(kyma.labels, Contains(Pair("kyma-project.io/shoot-name", "shoot1")));
    EXPECT_THAT(kyma.labels, Contains(Pair("kyma-project.io/provider", "GCP")));
    EXPECT_THAT(kyma.labels, Contains(Pair("kyma-project.io/region", "europe-west3")));
    EXPECT_THAT(kyma.labels, Contains(Pair("kyma-project.io/instance-id", "inst-1")));
    EXPECT_EQ(kyma.annotations.count("skr-domain"), 1u);

    kcp.set_all(name, "Processing");
    clock.advance(5s);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Waiting);
    EXPECT_EQ(operation(started.operation.id).message,
              "0/3 modules ready: istio Processing, serverless Processing, keda Processing");
    kcp.set_all(name, "Ready");
    clock.advance(5s);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_THAT(messages_of(started.operation.id), Contains("3/3 modules ready"));
}

TEST_F(KlmStages, AKymaThatIsNeverReadyFailsAtTheTimeoutNamingItsModules) {
    const auto started = provision_until_waiting();
    const std::string name = kyma_name_of(started.runtime_id);
    kcp.set_all(name, "Processing");
    kcp.kymas.at(name).last_operation = "waiting for all modules to become ready";
    clock.advance(options.timeouts.installation + 1s);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Failed);
    const auto op = operation(started.operation.id);
    EXPECT_EQ(op.last_error.reason, "err_provisioner_timeout");
    EXPECT_EQ(op.last_error.component, "kyma lifecycle manager");
    EXPECT_THAT(op.message, HasSubstr("timeout waiting for Kyma kcp-system/" + name +
                                      " to be Ready: state Processing, last operation \"waiting "
                                      "for all modules to become ready\"; modules not ready: "
                                      "istio (Processing: working on it)"));
    EXPECT_THAT(op.message, HasSubstr("keda (Processing: working on it)"));
}

TEST_F(KlmStages, AnUnreachableKcpIsRetriedNotFailed) {
    const auto started = provision(modules_document());
    pass(started.operation.id);
    gardener.succeed("shoot1");
    kcp.down = true;
    clock.advance(20s);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Waiting);
    const auto op = operation(started.operation.id);
    EXPECT_EQ(op.stage, "ApplyingKymaSecret");
    EXPECT_THAT(op.last_error.message, HasSubstr("in the KCP (https://kcp.example.com)"));
    kcp.down = false;
    clock.advance(1min);
    pass(started.operation.id);
    EXPECT_EQ(operation(started.operation.id).stage, "WaitingForKymaReady");
}

TEST_F(KlmStages, WhatAKymaCannotSayIsRefusedWithEveryFieldNamed) {
    auto doc = modules_document();
    doc["kymaConfig"]["components"][1]["namespace"] = "serverless-system";
    doc["kymaConfig"]["configuration"] = {{{"key", "a.b"}, {"value", "c"}}};
    try {
        provision(doc);
        FAIL() << "accepted";
    } catch (const ValidationError& e) {
        std::vector<std::string> paths;
        for (const auto& p : e.problems())
            paths.push_back(p.path);
        EXPECT_THAT(paths,
                    ElementsAre("kymaConfig.configuration", "kymaConfig.components[1].namespace"));
        EXPECT_THAT(e.problems()[0].message, HasSubstr("KPROV_KYMA_LOSSY=warn"));
    }
    EXPECT_THAT(store.list_runtimes({}), IsEmpty()) << "nothing stored";
}

TEST_F(KlmStages, WithTheLossySwitchWhatAKymaCannotSayPassesWithAWarningInTheHistory) {
    options.kyma.klm.lossy_warn = true;
    auto doc = modules_document();
    doc["kymaConfig"]["components"][1]["namespace"] = "serverless-system";
    doc["kymaConfig"]["configuration"] = {{{"key", "a.b"}, {"value", "c"}}};
    const auto started = provision(doc);
    EXPECT_THAT(started.warnings, Contains(HasSubstr("kymaConfig.components[1].namespace")));
    pass(started.operation.id);
    gardener.succeed("shoot1");
    clock.advance(20s);
    pass(started.operation.id);
    EXPECT_THAT(messages_of(started.operation.id),
                Contains(HasSubstr("kymaConfig.configuration 1 configuration entries")));
}

TEST_F(KlmStages, ModulesTheLandscapeDoesNotOfferAreRefusedWithASuggestion) {
    options.kyma.klm.modules = {"istio", "serverless", "keda-manager"};
    auto doc = modules_document();
    doc["kymaConfig"]["components"][1]["component"] = "servrless";
    try {
        provision(doc);
        FAIL() << "accepted";
    } catch (const ValidationError& e) {
        ASSERT_EQ(e.problems().size(), 2u);
        EXPECT_EQ(e.problems()[0].path, "kymaConfig.components[1].component");
        EXPECT_EQ(e.problems()[0].message, "\"servrless\" is not a module this landscape offers "
                                           "(did you mean \"serverless\"?)");
        EXPECT_EQ(e.problems()[1].path, "kymaConfig.components[3].component");
        EXPECT_THAT(e.problems()[1].message,
                    HasSubstr("KPROV_KYMA_MODULES lists the ones it does"));
    }
}

TEST_F(KlmStages, DeprovisioningDeletesTheKymaBeforeTheShootAndTheSecretAtTheEnd) {
    const auto started = provision_until_waiting();
    const std::string name = kyma_name_of(started.runtime_id);
    kcp.set_all(name, "Ready");
    clock.advance(5s);
    pass(started.operation.id);
    const auto deprovision = service().deprovision(started.runtime_id, context);
    EXPECT_EQ(deprovision.operation.stage, "DeletingKyma");
    EXPECT_EQ(deprovision.operation.type, OperationType::Deprovision);
    pass(deprovision.operation.id);
    EXPECT_EQ(operation(deprovision.operation.id).stage, "WaitingForKymaDeletion");
    EXPECT_FALSE(gardener.shoot("shoot1").contains("metadata") &&
                 gardener.shoot("shoot1")["metadata"].contains("deletionTimestamp"));
    kcp.kymas.erase(name); // KLM dropped its finalizer
    clock.advance(5s);
    pass(deprovision.operation.id);
    EXPECT_EQ(operation(deprovision.operation.id).stage, "WaitForClusterDeletion");
    EXPECT_EQ(kcp.secrets.count("kubeconfig-" + started.runtime_id), 1u);
    gardener.finish_deletion("shoot1");
    clock.advance(20s);
    EXPECT_EQ(pass(deprovision.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_EQ(kcp.secrets.count("kubeconfig-" + started.runtime_id), 0u);
}

TEST_F(KlmStages, AKymaStuckInDeletionLosesItsSecretThenTheShootGoesAllTheSame) {
    const std::string id = provisioned_with_kyma();
    const std::string name = kyma_name_of(id);
    const auto deprovision = service().deprovision(id, context);
    pass(deprovision.operation.id);
    clock.advance(5s);
    pass(deprovision.operation.id);
    EXPECT_EQ(kcp.secrets.count("kubeconfig-" + id), 1u) << "not yet";
    clock.advance(options.kyma.klm.deletion_timeout);
    pass(deprovision.operation.id);
    EXPECT_EQ(kcp.secrets.count("kubeconfig-" + id), 0u);
    EXPECT_THAT(messages_of(deprovision.operation.id),
                Contains(HasSubstr("so that Kyma Lifecycle Manager lets go of Kyma " + name +
                                   " (its deletion took longer than 10m)")));
    EXPECT_EQ(operation(deprovision.operation.id).stage, "WaitingForKymaDeletion");
    clock.advance(options.kyma.klm.deletion_timeout);
    pass(deprovision.operation.id);
    EXPECT_EQ(operation(deprovision.operation.id).stage, "WaitForClusterDeletion");
    EXPECT_THAT(messages_of(deprovision.operation.id),
                Contains(HasSubstr("deleting the shoot all the same")));
}

TEST_F(KlmStages, AnUnreachableRuntimeLosesItsSecretAtOnce) {
    const std::string id = provisioned_with_kyma();
    gardener.shoot("shoot1")["status"]["hibernated"] = true;
    const auto deprovision = service().deprovision(id, context);
    pass(deprovision.operation.id);
    EXPECT_EQ(kcp.secrets.count("kubeconfig-" + id), 0u);
    EXPECT_THAT(messages_of(deprovision.operation.id),
                Contains(HasSubstr("(the runtime cannot be reached)")));
}

TEST_F(KlmStages, AKymaUpgradeIsRefusedWithTheReason) {
    const auto started = provision_until_waiting();
    KymaUpgradeInput input;
    input.kyma_config_json = R"({"version":"fast","components":[{"component":"istio",
        "namespace":"kyma-system"}]})";
    try {
        service().upgrade_kyma(started.runtime_id, input, context);
        FAIL() << "accepted";
    } catch (const KymaNotManaged& e) {
        EXPECT_THAT(e.what(), HasSubstr("kyma-system/default"));
    }
}

TEST_F(KlmStages, TheRefresherReissuesOnlySecretsOlderThanTheRotation) {
    const auto started = provision_until_waiting();
    const std::string secret = "kubeconfig-" + started.runtime_id;
    const auto first = kcp.secrets.at(secret).annotations.at("operator.kyma-project.io/last-sync");
    options.kyma.klm.kubeconfig_rotation = 1h;
    KymaSecretRefresher refresher(kcp, store, gardener, clock, options.kyma.klm);
    EXPECT_EQ(refresher.refresh_once(), 0u);
    clock.advance(61min);
    EXPECT_EQ(refresher.refresh_once(), 1u);
    EXPECT_NE(kcp.secrets.at(secret).annotations.at("operator.kyma-project.io/last-sync"), first);
    EXPECT_EQ(refresher.refresh_once(), 0u) << "fresh again";
    EXPECT_EQ(refresher.check_interval(), 1min);
}

} // namespace
} // namespace kprov::engine::test
