// Director registration in the engine (original-provisioner.md §2.3, §2.4, §3.2, §6) with a
// scripted Director: the runtime id from registerRuntime, the labels and PROVISIONING once the
// domain is known, ConnectRuntimeAgent, FAILED after failures, unregistering, and the retry
// budget of Director failures.

#include "engine/stages/registration.hpp"
#include "engine_fixture.hpp"
#include "support/fake_kyma.hpp"

#include <deque>
#include <gmock/gmock.h>

namespace kprov::engine::test {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

class FakeDirector final : public Director {
public:
    struct Stored {
        DirectorRuntimeInput input;
        std::string tenant;
    };

    std::string register_runtime(const DirectorRuntimeInput& input,
                                 const std::string& tenant) override {
        enter("register");
        const std::string id = next_id.empty() ? new_uuid() : next_id;
        runtimes[id] = {input, tenant};
        return id;
    }
    std::optional<DirectorRuntime> runtime(const std::string& id,
                                           const std::string& tenant) override {
        enter("runtime");
        const auto it = runtimes.find(id);
        if (it == runtimes.end() || it->second.tenant != tenant)
            return std::nullopt;
        return DirectorRuntime{id, it->second.input.name, it->second.input.description,
                               it->second.input.labels_json};
    }
    void update_runtime(const std::string& id, const DirectorRuntimeInput& input,
                        const std::string&) override {
        enter("update");
        runtimes.at(id).input = input;
    }
    OneTimeToken request_one_time_token(const std::string& id, const std::string&) override {
        enter("token");
        if (!runtimes.count(id))
            throw DirectorError("not found", 200, false, "NotFound", k_component_director, 20);
        return {"one-time-token", "https://connector"};
    }
    void unregister_runtime(const std::string& id, const std::string&) override {
        enter("unregister");
        if (!runtimes.erase(id))
            throw DirectorError("not found", 200, false, "NotFound", k_component_director, 20);
    }

    /// The next calls (of any method) throw these, in order.
    std::deque<DirectorError> failures;
    std::map<std::string, int> calls;
    std::map<std::string, Stored> runtimes;
    std::string next_id;

    static DirectorError outage() {
        return {"compass director: runtime: HTTP 503", 503, true, "", k_component_director};
    }

private:
    void enter(const std::string& method) {
        ++calls[method];
        if (!failures.empty()) {
            const DirectorError e = failures.front();
            failures.pop_front();
            throw e;
        }
    }
};

class Registration : public EngineTest {
protected:
    Registration() {
        options.director.registration_enabled = true;
        options.director.deregistration_enabled = true;
        ports.director = &director;
        options.director.max_failed_passes = 3;
    }

    /// Provisioned to WaitingForClusterCreation (the shoot exists and has its domain).
    StartedOperation started_and_labelled() {
        auto doc = provision_document();
        doc["runtimeInput"]["labels"] = {{"team", "blue"}};
        const auto started = provision(doc);
        EXPECT_EQ(pass(started.operation.id).operation.stage, "WaitingForClusterCreation");
        return started;
    }

    FakeDirector director;
};

TEST_F(Registration, TheRuntimeIdComesFromDirector) {
    director.next_id = "0f6a3a9e-1111-4222-8333-444455556666";
    const auto started = provision();
    EXPECT_EQ(started.runtime_id, director.next_id);
    EXPECT_EQ(started.compass_runtime_id, director.next_id);
    EXPECT_EQ(runtime(director.next_id).id, director.next_id);
    const auto& registered = director.runtimes.at(director.next_id);
    EXPECT_EQ(registered.input.name, "my-runtime");
    EXPECT_EQ(registered.tenant, "tenant-a");
}

TEST_F(Registration, ARuntimeThatCannotBeStoredIsUnregistered) {
    director.next_id = "0f6a3a9e-1111-4222-8333-444455556666";
    provision(provision_document("first"));
    EXPECT_THROW(provision(provision_document("second")), Conflict);
    EXPECT_EQ(director.calls["unregister"], 1);
}

TEST_F(Registration, AFailedRegistrationStartsNothing) {
    director.failures.push_back(
        DirectorError("refused", 200, false, "InvalidData", k_component_director, 22));
    try {
        provision();
        FAIL();
    } catch (const DirectorError& e) {
        EXPECT_THAT(e.what(), HasSubstr("Failed to register Runtime, refused"));
        EXPECT_EQ(e.reason(), "InvalidData");
    }
    EXPECT_TRUE(store.list_runtimes({std::nullopt, true}).empty());
}

TEST_F(Registration, TheDomainLabelsAndProvisioningStatusJoinTheRuntimesOwnLabels) {
    const auto started = started_and_labelled();
    const auto& labelled = director.runtimes.at(started.runtime_id).input;
    const auto labels = nlohmann::json::parse(labelled.labels_json);
    EXPECT_EQ(labels["team"], "blue");
    EXPECT_EQ(labels["gardenerClusterName"], "shoot1");
    EXPECT_EQ(labels["gardenerClusterDomain"], gardener.shoot("shoot1")["spec"]["dns"]["domain"]);
    EXPECT_EQ(labelled.status_condition, DirectorStatusCondition::Provisioning);
    EXPECT_EQ(labelled.name, "my-runtime");
}

TEST_F(Registration, ConnectRuntimeAgentFollowsTheBindings) {
    const auto started = started_and_labelled();
    gardener.succeed("shoot1");
    const auto done = pass(started.operation.id);
    ASSERT_EQ(done.outcome, PassOutcome::Succeeded) << done.error;
    EXPECT_THAT(stages_of(started.operation.id), Contains("ConnectRuntimeAgent"));
    ASSERT_EQ(clusters.agent_calls.size(), 1u);
    const auto& agent = clusters.agent_calls[0].agent;
    EXPECT_EQ(agent.runtime_id, started.runtime_id);
    EXPECT_EQ(agent.tenant, "tenant-a");
    EXPECT_EQ(agent.token, "one-time-token");
    EXPECT_EQ(agent.connector_url, "https://connector");
}

TEST_F(Registration, WithRegistrationOffNothingAsksDirector) {
    options.director.registration_enabled = false;
    options.director.deregistration_enabled = false;
    const auto started = provision();
    EXPECT_FALSE(started.compass_runtime_id);
    pass(started.operation.id);
    gardener.succeed("shoot1");
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_THAT(stages_of(started.operation.id), ::testing::Not(Contains("ConnectRuntimeAgent")));
    EXPECT_TRUE(director.calls.empty());
    EXPECT_TRUE(clusters.agent_calls.empty());
}

TEST_F(Registration, AnOutageIsRetriedForAFewPassesThenFailsWithComponentCompassDirector) {
    const auto started = provision();
    for (int i = 0; i < 10; ++i)
        director.failures.push_back(FakeDirector::outage());
    auto first = pass(started.operation.id);
    EXPECT_EQ(first.outcome, PassOutcome::Waiting);
    EXPECT_EQ(first.operation.last_error.component, "compass director");
    clock.advance(1min);
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Waiting);
    clock.advance(1min);
    const auto failed = pass(started.operation.id);
    ASSERT_EQ(failed.outcome, PassOutcome::Failed);
    EXPECT_EQ(failed.operation.stage, "WaitingForClusterDomain");
    EXPECT_EQ(failed.operation.last_error.component, "compass director");
    EXPECT_THAT(failed.operation.message, HasSubstr("503"));
}

TEST_F(Registration, ARefusalIsNotRetried) {
    const auto started = provision();
    director.failures.push_back(
        DirectorError("no scopes", 200, false, "InsufficientScopes", k_component_director, 23));
    const auto failed = pass(started.operation.id);
    ASSERT_EQ(failed.outcome, PassOutcome::Failed);
    EXPECT_EQ(failed.operation.last_error.reason, "InsufficientScopes");
}

TEST_F(Registration, AFailedOperationSetsFailedInDirector) {
    const auto started = started_and_labelled();
    gardener.set_last_operation("shoot1", "Create", "Failed", "quota");
    ASSERT_EQ(pass(started.operation.id).outcome, PassOutcome::Failed);
    EXPECT_EQ(director.runtimes.at(started.runtime_id).input.status_condition,
              DirectorStatusCondition::Failed);
    EXPECT_THAT(director.runtimes.at(started.runtime_id).input.labels_json,
                HasSubstr("gardenerClusterDomain"));
}

TEST_F(Registration, AShootThatCannotBeCreatedUnregistersTheRuntime) {
    auto foreign = nlohmann::json::parse(R"({"metadata": {"name": "shoot1"}, "spec": {}})");
    gardener.add_shoot(foreign);
    const auto started = provision();
    ASSERT_EQ(pass(started.operation.id).outcome, PassOutcome::Failed);
    EXPECT_FALSE(director.runtimes.count(started.runtime_id));
}

TEST_F(Registration, DeprovisioningUnregistersARuntimeDirectorStillKnows) {
    const std::string id = provisioned_runtime();
    ASSERT_TRUE(director.runtimes.count(id));
    const auto started = service().deprovision(id, context);
    pass(started.operation.id);
    gardener.finish_deletion("shoot1");
    clock.advance(20s);
    ASSERT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_FALSE(director.runtimes.count(id));
    EXPECT_EQ(director.calls["unregister"], 1);
}

TEST_F(Registration, DeprovisioningSkipsARuntimeDirectorForgot) {
    const std::string id = provisioned_runtime();
    director.runtimes.erase(id);
    const auto started = service().deprovision(id, context);
    pass(started.operation.id);
    gardener.finish_deletion("shoot1");
    clock.advance(20s);
    ASSERT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_EQ(director.calls["unregister"], 0);
}

// A runtime with Kyma waits for its Runtime Agent (WaitForAgentToConnect) once it is configured.
class AgentConnection : public Registration {
protected:
    AgentConnection() {
        ports.kyma_installer = &installer;
        ports.releases = &releases;
        options.kyma.installer_setting = "installation-cr";
        releases.add("1.24.11");
        installer.probe_result = fakes::FakeKymaInstaller::state("Installed", "Kyma installed");
    }
    // A runtime with Kyma, its shoot created: the next pass runs up to the agent.
    StartedOperation with_kyma() {
        auto doc = provision_document();
        doc["kymaConfig"] = {
            {"version", "1.24.11"},
            {"components",
             {{{"component", "compass-runtime-agent"}, {"namespace", "compass-system"}}}}};
        const auto started = provision(doc);
        pass(started.operation.id);
        gardener.succeed("shoot1");
        return started;
    }
    fakes::FakeKymaInstaller installer;
    fakes::FakeReleaseSource releases;
};

TEST_F(AgentConnection, ASynchronizedAgentMarksTheRuntimeConnected) {
    clusters.connection_state = std::nullopt; // the agent has not connected yet
    const auto started = with_kyma();
    auto result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, "WaitForAgentToConnect") << result.error;
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 5s);
    clusters.connection_state = "Synchronized";
    clock.advance(5s);
    result = pass(started.operation.id);
    EXPECT_EQ(result.outcome, PassOutcome::Succeeded) << result.error;
    EXPECT_EQ(director.runtimes.at(started.runtime_id).input.status_condition,
              DirectorStatusCondition::Connected);
    EXPECT_THAT(stages_of(started.operation.id),
                ::testing::IsSupersetOf(
                    {std::string("ConnectRuntimeAgent"), std::string("WaitForAgentToConnect")}));
}

TEST_F(AgentConnection, AFailedConnectionConfiguresTheAgentAgainAndWaitsTwoMinutes) {
    clusters.connection_state = "ConnectionFailed";
    const auto started = with_kyma();
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.operation.stage, "WaitForAgentToConnect");
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 2min);
    EXPECT_EQ(clusters.agent_calls.size(), 2u) << "configured, then again with a new token";
    EXPECT_EQ(director.calls["token"], 2);
}

TEST_F(AgentConnection, AnotherStateIsLookedAtAgainSoon) {
    clusters.connection_state = "Connected";
    const auto started = with_kyma();
    const auto result = pass(started.operation.id);
    EXPECT_EQ(result.operation.next_run_at, clock.now() + 2s);
}

TEST_F(AgentConnection, ARuntimeWithoutKymaDoesNotWaitForAnAgent) {
    const auto started = provision();
    pass(started.operation.id);
    gardener.succeed("shoot1");
    EXPECT_EQ(pass(started.operation.id).outcome, PassOutcome::Succeeded);
    EXPECT_EQ(clusters.connection_reads, 0);
}

TEST_F(Registration, CompassRuntimeIdOnlyWhileRegistrationIsOn) {
    EXPECT_EQ(compass_runtime_id(options, "id-1"), "id-1");
    options.director.registration_enabled = false;
    EXPECT_FALSE(compass_runtime_id(options, "id-1"));
    // Registration on without a Director port cannot be assembled (check_ports), so no
    // answer ever carries an id Director does not know.
    options.director.registration_enabled = true;
    ports.director = nullptr;
    EXPECT_THROW(EngineService(ports, options), ConfigError);
}

} // namespace
} // namespace kprov::engine::test
