// The Kyma stages and requests against fakes (kyma-installation.md §2-§4), table by table: what
// each probe result makes of the operation, with the original's messages, components and
// reasons compared literally. tests/cli/kyma_test.cpp runs the same paths against kprov-sim.

#include "engine_fixture.hpp"
#include "support/fake_kyma.hpp"

#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using fakes::FakeKymaInstaller;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class KymaStages : public EngineTest {
protected:
    KymaStages() {
        ports.kyma_installer = &installer;
        ports.releases = &releases;
        options.kyma.installer_setting = "installation-cr";
        releases.add("1.24.11");
        releases.add("1.24.8");
    }

    static nlohmann::json kyma_document(const std::string& shoot = "shoot1",
                                        const std::string& version = "1.24.11") {
        auto doc = provision_document(shoot);
        doc["kymaConfig"] = nlohmann::json::parse(R"({
          "version": "", "profile": "Production",
          "components": [
            {"component": "cluster-essentials", "namespace": "kyma-system"},
            {"component": "istio", "namespace": "istio-system",
             "configuration": [{"key": "global.mtls", "value": "true"}],
             "conflictStrategy": "Replace"},
            {"component": "compass-runtime-agent", "namespace": "compass-system",
             "sourceURL": "https://example.com/agent.tgz"}
          ],
          "configuration": [{"key": "global.domainName", "value": "x.example.com"},
                            {"key": "global.password", "value": "s3cret", "secret": true}]
        })");
        doc["kymaConfig"]["version"] = version;
        return doc;
    }

    // Provisions a runtime with Kyma up to StartingInstallation: its first pass creates the
    // shoot, the second runs until the Kyma stages wait.
    StartedOperation provision_with_kyma(const std::string& shoot = "shoot1") {
        const auto started = provision(kyma_document(shoot));
        pass(started.operation.id);
        gardener.succeed(shoot);
        return started;
    }

    std::vector<std::string> messages_of(const std::string& operation_id) {
        std::vector<std::string> out;
        for (const auto& t : store.transitions_of(operation_id))
            out.push_back(t.message);
        return out;
    }

    FakeKymaInstaller installer;
    fakes::FakeReleaseSource releases;
};

TEST_F(KymaStages, ProvisioningWithKymaConfigIsTypeProvisionAndStoresTheConfig) {
    const auto started = provision(kyma_document());
    EXPECT_EQ(started.operation.type, OperationType::Provision);
    const auto stored = runtime(started.runtime_id);
    ASSERT_TRUE(stored.kyma);
    EXPECT_EQ(stored.kyma->release.version, "1.24.11");
    EXPECT_FALSE(stored.kyma->release.installer_yaml.empty());
    EXPECT_EQ(stored.kyma->profile, KymaProfile::Production);
    ASSERT_EQ(stored.kyma->components.size(), 3u);
    EXPECT_EQ(stored.kyma->components[1].name, "istio");
    EXPECT_EQ(stored.kyma->components[1].order, 2);
    EXPECT_EQ(stored.kyma->components[1].configuration.conflict_strategy, "Replace");
    EXPECT_EQ(stored.kyma->components[2].source_url, "https://example.com/agent.tgz");
    EXPECT_TRUE(stored.kyma->global.entries[1].secret);
    EXPECT_FALSE(stored.kyma->global.entries[0].secret);
}

TEST_F(KymaStages, ProvisioningWithoutKymaConfigIsNoInstallAndNeverCallsTheInstaller) {
    const auto started = provision();
    EXPECT_EQ(started.operation.type, OperationType::ProvisionNoInstall);
    pass(started.operation.id);
    gardener.succeed("shoot1");
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_TRUE(installer.calls().empty());
    EXPECT_EQ(releases.fetches, 0);
}

TEST_F(KymaStages, AnUnknownVersionFailsTheRequestAndStoresNothing) {
    EXPECT_THROW(provision(kyma_document("shoot1", "9.9.9")), RemoteError);
    EXPECT_TRUE(store.list_runtimes({}).empty());
}

TEST_F(KymaStages, AStoredReleaseIsNotDownloadedAgain) {
    provision(kyma_document("shoot1"));
    provision(kyma_document("shoot2"));
    EXPECT_EQ(releases.fetches, 1);
}

TEST_F(KymaStages, WithoutAnInstallerAKymaConfigIsRefusedNamingTheSetting) {
    options.kyma.installer_setting = "none";
    try {
        provision(kyma_document());
        FAIL() << "accepted";
    } catch (const ValidationError& e) {
        EXPECT_THAT(e.what(), HasSubstr("KPROV_KYMA_INSTALLER"));
        EXPECT_EQ(e.problems().at(0).path, "kymaConfig");
    }
    EXPECT_TRUE(store.list_runtimes({}).empty());
    EXPECT_EQ(releases.fetches, 0);
}

TEST_F(KymaStages, AFreshClusterIsTriggeredOnceAndWaitedForAfterThirtySeconds) {
    const auto started = provision_with_kyma();
    const auto result = pass(started.operation.id);
    ASSERT_EQ(result.outcome, PassOutcome::Waiting) << result.error;
    EXPECT_EQ(result.operation.stage, k_stage_waiting_for_installation);
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 30s);
    const auto calls = installer.calls();
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0], "probe");
    EXPECT_EQ(calls[1], "install " + runtime(started.runtime_id).kyma->id);
    // The installer got the stored config, release included, and the admin kubeconfig.
    EXPECT_EQ(installer.installed.at(0).release.version, "1.24.11");
    EXPECT_FALSE(installer.kubeconfigs().at(0).empty());
}

TEST_F(KymaStages, StartingInstallationSkipsTheTriggerWhenTheCrIsAlreadyMoving) {
    struct Row {
        engine::InstallationProbe probe;
        bool triggers;
    };
    const Row rows[] = {
        {FakeKymaInstaller::state("InProgress", "install component istio"), false},
        {FakeKymaInstaller::state("Installed", "Kyma installed"), false},
        {FakeKymaInstaller::installer_error("install component istio", true, {"istio"}), false},
        {FakeKymaInstaller::installer_error("install component istio", false, {"istio"}), false},
        {FakeKymaInstaller::state("", ""), true},
        {FakeKymaInstaller::no_installation(), true},
    };
    int n = 0;
    for (const auto& row : rows) {
        const std::string shoot = "row" + std::to_string(++n);
        const auto started = provision_with_kyma(shoot);
        installer.probe_result = row.probe;
        const auto before = installer.installed.size();
        pass(started.operation.id);
        EXPECT_EQ(installer.installed.size() - before, row.triggers ? 1u : 0u) << shoot;
    }
}

TEST_F(KymaStages, AFailedTriggerIsRetriedAsTheKymaInstallersError) {
    const auto started = provision_with_kyma();
    installer.trigger_error = std::make_exception_ptr(
        RemoteError("failed to apply Installer resources: boom", 500, true));
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, k_stage_starting_installation);
    EXPECT_EQ(result.operation.last_error.message,
              "error: failed to start installation: failed to apply Installer resources: boom");
    EXPECT_EQ(result.operation.last_error.component, "kyma installer");
    EXPECT_EQ(result.operation.last_error.reason, "err_trigger_kyma_install");
}

TEST_F(KymaStages, WaitingForInstallationFollowsTheProbeTable) {
    const auto started = provision_with_kyma();
    pass(started.operation.id); // triggered
    const std::string id = started.operation.id;

    installer.probe_result = FakeKymaInstaller::state("InProgress", "install component istio");
    clock.advance(30s);
    auto result = pass(id);
    EXPECT_EQ(result.operation.message, "Installation in progress: install component istio");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 30s);
    EXPECT_FALSE(result.operation.end_timestamp) << "end_timestamp is only for the end (§7.4)";

    installer.probe_result =
        FakeKymaInstaller::installer_error("install component istio", true, {"istio"});
    clock.advance(30s);
    result = pass(id);
    EXPECT_EQ(result.operation.state, OperationState::InProgress);
    EXPECT_EQ(result.operation.message,
              "Installation error occurred: installation error occurred: install component istio");
    EXPECT_TRUE(result.operation.last_error.empty());

    installer.probe_result = FakeKymaInstaller::no_installation();
    clock.advance(30s);
    result = pass(id);
    EXPECT_EQ(result.operation.last_error.message, "installation not yet started");
    EXPECT_EQ(result.operation.last_error.reason, "NoInstallation");
    EXPECT_EQ(result.operation.last_error.component, "kyma installer");

    installer.probe_error =
        std::make_exception_ptr(InvalidInstallationState("invalid installation state: Bogus"));
    clock.advance(30s);
    result = pass(id);
    EXPECT_EQ(result.operation.last_error.message,
              "error: failed to check installation state: invalid installation state: Bogus");
    EXPECT_EQ(result.operation.last_error.reason, "err_check_kyma_installation_state");
    installer.probe_error = nullptr;

    installer.probe_result = FakeKymaInstaller::state("Installed", "Kyma installed");
    clock.advance(30s);
    result = pass(id);
    EXPECT_EQ(result.outcome, PassOutcome::Succeeded) << result.error;
    EXPECT_THAT(
        messages_of(id),
        ::testing::IsSupersetOf({std::string("Operation in progress. Stage StartingInstallation"),
                                 std::string("Operation in progress. Stage WaitingForInstallation"),
                                 std::string("Installation in progress: install component istio"),
                                 std::string("Installation completed: Kyma installed"),
                                 std::string("Operation succeeded")}));
}

TEST_F(KymaStages, ANonRecoverableInstallerErrorFailsWithTheComponentsAsReason) {
    const auto started = provision_with_kyma();
    pass(started.operation.id);
    installer.probe_result =
        FakeKymaInstaller::installer_error("install component istio", false, {"istio", "istio"});
    clock.advance(30s);
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    EXPECT_EQ(result.operation.message, "installation error occurred: install component istio");
    EXPECT_EQ(result.operation.last_error.reason, "istio, istio");
    EXPECT_EQ(result.operation.last_error.component, "kyma installer");
    // The progress message came first, as in the original.
    const auto messages = messages_of(started.operation.id);
    ASSERT_GE(messages.size(), 2u);
    EXPECT_EQ(messages[messages.size() - 2],
              "Installation error occurred: installation error occurred: install component istio");
}

TEST_F(KymaStages, AnInstallationThatNeverEndsTimesOut) {
    options.timeouts.installation = 60min;
    const auto started = provision_with_kyma();
    pass(started.operation.id);
    installer.probe_result = FakeKymaInstaller::state("InProgress", "install component istio");
    clock.advance(61min);
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    EXPECT_EQ(result.operation.last_error.message, "error: timeout while processing operation");
    EXPECT_EQ(result.operation.last_error.reason, "err_provisioner_timeout");
}

TEST_F(KymaStages, AReRunAfterACrashBetweenTriggerAndProbeDoesNotTriggerAgain) {
    const auto started = provision_with_kyma();
    pass(started.operation.id);
    // A second process finds the operation; the CR moved on since the trigger.
    auto other = new_executor();
    clock.advance(2min);
    other->run_operation(started.operation.id, "worker-2");
    EXPECT_EQ(installer.installed.size(), 1u);
}

class KymaUpgrade : public KymaStages {
protected:
    std::string runtime_with_kyma() {
        const auto started = provision_with_kyma();
        installer.probe_result = FakeKymaInstaller::state("Installed", "Kyma installed");
        EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
        return started.runtime_id;
    }
    KymaUpgradeInput upgrade_input(const std::string& version = "1.24.8") {
        auto doc = nlohmann::json::object();
        doc["kymaConfig"] = kyma_document("x", version)["kymaConfig"];
        return read_kyma_upgrade_input(doc);
    }
};

TEST_F(KymaUpgrade, SwitchesTheActiveConfigAtRequestTimeAndSucceeds) {
    const std::string id = runtime_with_kyma();
    const std::string before = runtime(id).kyma->id;
    const auto started = service().upgrade_kyma(id, upgrade_input(), context);
    EXPECT_EQ(started.operation.type, OperationType::Upgrade);
    EXPECT_EQ(started.operation.stage, k_stage_starting_upgrade);
    EXPECT_EQ(started.operation.message, "Starting Kyma upgrade");
    const auto upgraded = runtime(id);
    EXPECT_EQ(upgraded.kyma->release.version, "1.24.8");
    const auto record = store.find_runtime_upgrade(started.operation.id);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->state, UpgradeState::InProgress);
    EXPECT_EQ(record->pre_upgrade_kyma_config_id, before);
    EXPECT_EQ(record->post_upgrade_kyma_config_id, upgraded.kyma->id);

    // Installed: StartingUpgrade triggers, WaitingForInstallation waits for the new run.
    auto result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, k_stage_waiting_for_installation);
    EXPECT_EQ(installer.calls().back(), "upgrade " + upgraded.kyma->id);
    installer.probe_result = FakeKymaInstaller::state("Installed", "Kyma installed");
    clock.advance(30s);
    result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Succeeded) << result.error;
    EXPECT_EQ(store.find_runtime_upgrade(started.operation.id)->state, UpgradeState::Succeeded);
}

TEST_F(KymaUpgrade, AFailedUpgradeMarksItsRecordFailedAndKeepsTheNewConfig) {
    const std::string id = runtime_with_kyma();
    const auto started = service().upgrade_kyma(id, upgrade_input(), context);
    installer.probe_result = FakeKymaInstaller::no_installation();
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Failed);
    EXPECT_EQ(result.operation.message,
              "error: Installation CR not found in the cluster, cannot trigger upgrade");
    EXPECT_EQ(store.find_runtime_upgrade(started.operation.id)->state, UpgradeState::Failed);
    EXPECT_EQ(runtime(id).kyma->release.version, "1.24.8");
}

TEST_F(KymaUpgrade, StartingUpgradeTriggersOnlyOnInstalledOrAGivenUpError) {
    struct Row {
        engine::InstallationProbe probe;
        bool triggers;
    };
    const Row rows[] = {
        {FakeKymaInstaller::state("InProgress", "install component istio"), false},
        {FakeKymaInstaller::state("", ""), false},
        {FakeKymaInstaller::installer_error("install component istio", true, {"istio"}), false},
        {FakeKymaInstaller::installer_error("install component istio", false, {"istio"}), true},
    };
    const std::string id = runtime_with_kyma();
    for (const auto& row : rows) {
        const auto started = service().upgrade_kyma(id, upgrade_input(), context);
        installer.probe_result = row.probe;
        const auto before = installer.installed.size();
        pass(started.operation.id);
        EXPECT_EQ(installer.installed.size() - before, row.triggers ? 1u : 0u)
            << row.probe.state << " " << row.probe.recoverable;
        // End it, so that the next row can start an upgrade.
        installer.probe_result = FakeKymaInstaller::state("Installed", "Kyma installed");
        clock.advance(30s);
        pass(started.operation.id);
    }
}

TEST_F(KymaUpgrade, RollBackMakesThePreviousConfigActiveWithoutTouchingTheCluster) {
    const std::string id = runtime_with_kyma();
    const std::string before = runtime(id).kyma->id;
    const auto started = service().upgrade_kyma(id, upgrade_input(), context);
    EXPECT_THROW(service().roll_back_kyma(id, context), ValidationError) << "still in progress";
    installer.probe_result = FakeKymaInstaller::state("Installed", "Kyma installed");
    pass(started.operation.id); // triggers
    installer.probe_result = FakeKymaInstaller::state("Installed", "Kyma installed");
    clock.advance(30s);
    ASSERT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    const auto calls = installer.calls().size();
    service().roll_back_kyma(id, context);
    EXPECT_EQ(runtime(id).kyma->id, before);
    EXPECT_EQ(store.find_runtime_upgrade(started.operation.id)->state, UpgradeState::RolledBack);
    EXPECT_EQ(installer.calls().size(), calls);
}

TEST_F(KymaUpgrade, ARuntimeWithoutKymaIsManagedElsewhere) {
    const std::string id = provisioned_runtime();
    try {
        service().upgrade_kyma(id, upgrade_input(), context);
        FAIL() << "accepted";
    } catch (const KymaNotManaged& e) {
        EXPECT_EQ(std::string(e.what()), "failed to upgrade cluster: " + id +
                                             " Kyma configuration of the cluster is managed by "
                                             "Reconciler");
    }
}

TEST_F(KymaUpgrade, AnUpgradeInputWithoutTheRuntimeAgentIsRefusedWithTheUpgradePrefix) {
    auto doc = nlohmann::json::object();
    doc["kymaConfig"] = {{"version", "1.24.8"},
                         {"components", {{{"component", "istio"}, {"namespace", "istio"}}}}};
    try {
        read_kyma_upgrade_input(doc);
        FAIL() << "accepted";
    } catch (const ValidationError& e) {
        EXPECT_THAT(e.what(), HasSubstr("validation error while starting Runtime upgrade, error: "
                                        "Kyma components list does not contain Compass Runtime "
                                        "Agent"));
    }
}

class KymaDeprovision : public KymaUpgrade {};

TEST_F(KymaDeprovision, WithKymaCleansUpAndUninstallsBeforeTheShootIsDeleted) {
    const std::string id = runtime_with_kyma();
    const auto started = service().deprovision(id, context);
    EXPECT_EQ(started.operation.type, OperationType::Deprovision);
    EXPECT_EQ(started.operation.stage, k_stage_cleanup_cluster);
    pass(started.operation.id);
    const auto calls = installer.calls();
    ASSERT_GE(calls.size(), 3u);
    EXPECT_EQ(calls[calls.size() - 2], "cleanup https://service-manager.");
    EXPECT_EQ(calls.back(), "uninstall");
    EXPECT_THAT(stages_of(started.operation.id),
                ::testing::IsSupersetOf(
                    {std::string("TriggerKymaUninstall"), std::string("DeprovisionCluster")}));
}

TEST_F(KymaDeprovision, ACrLessClusterOrARuntimeWithoutKymaGoesWithoutUninstall) {
    const std::string with_kyma = runtime_with_kyma();
    installer.probe_result = FakeKymaInstaller::no_installation();
    const auto without_cr = service().deprovision(with_kyma, context);
    EXPECT_EQ(without_cr.operation.type, OperationType::DeprovisionNoInstall);
    EXPECT_EQ(without_cr.operation.stage, k_stage_deprovision_cluster);

    const std::string plain = provisioned_runtime("plain");
    const auto calls = installer.calls().size();
    const auto no_kyma = service().deprovision(plain, context);
    EXPECT_EQ(no_kyma.operation.type, OperationType::DeprovisionNoInstall);
    EXPECT_EQ(installer.calls().size(), calls)
        << "no runtime-cluster call for a runtime without Kyma";
}

TEST_F(KymaDeprovision, StartStagesFollowTheShoot) {
    // Being deleted already: nothing is left to clean up or uninstall (§4.2).
    const std::string deleting = runtime_with_kyma();
    gardener.shoot("shoot1")["metadata"]["deletionTimestamp"] = format_rfc3339(clock.now());
    auto started = service().deprovision(deleting, context);
    EXPECT_EQ(started.operation.type, OperationType::Deprovision);
    EXPECT_EQ(started.operation.stage, k_stage_wait_for_cluster_deletion);
    // Gone: straight to the end.
    installer.probe_result = FakeKymaInstaller::state("Installed", "Kyma installed");
    const auto gone = provision_with_kyma("gone");
    ASSERT_EQ(pass(gone.operation.id).outcome, PassOutcome::Succeeded);
    gardener.finish_deletion("gone");
    started = service().deprovision(gone.runtime_id, context);
    EXPECT_EQ(started.operation.stage, k_stage_wait_for_cluster_deletion);
}

TEST_F(KymaDeprovision, AProbeErrorStillUninstalls) {
    const std::string id = runtime_with_kyma();
    installer.probe_error = std::make_exception_ptr(RemoteError("unreachable", 0, true));
    EXPECT_EQ(service().deprovision(id, context).operation.type, OperationType::Deprovision);
}

TEST_F(KymaDeprovision, AVanishedCrIsNothingToUninstall) {
    const std::string id = runtime_with_kyma();
    const auto started = service().deprovision(id, context);
    installer.probe_result = FakeKymaInstaller::no_installation();
    const auto result = pass(started.operation.id);
    EXPECT_NE(result.operation.stage, k_stage_trigger_kyma_uninstall) << result.error;
}

TEST_F(KymaDeprovision, AFailedUninstallTriggerIsRetriedWithTheOriginalsReason) {
    const std::string id = runtime_with_kyma();
    const auto started = service().deprovision(id, context);
    installer.uninstall_error = std::make_exception_ptr(RemoteError(
        "error labeling Installation CR with action=uninstall label: conflict", 409, true));
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, k_stage_trigger_kyma_uninstall);
    EXPECT_EQ(result.operation.last_error.reason, "err_trigger_kyma_uninstall");
    EXPECT_EQ(result.operation.last_error.component, "kyma installer");
}

} // namespace
} // namespace kprov::engine::test
