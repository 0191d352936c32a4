// The simulated Compass Runtime Agent: the CompassConnection compass-connection appears once
// the installer has installed compass-runtime-agent and kprov's Secret is there, with the
// connection states the knobs script per token, and survives hibernation.

#include "kyma_testing.hpp"

#include <gtest/gtest.h>

using namespace kprov::sim;
using namespace kprov::sim::testing;

namespace {

const char* k_group_version = "/apis/compass.kyma-project.io/v1alpha1";
const char* k_connection =
    "/apis/compass.kyma-project.io/v1alpha1/compassconnections/compass-connection";

// Installs Kyma with these components and waits for Installed.
void install(KymaCluster& kc, const std::vector<std::string>& components) {
    if (kc.get("/apis/installer.kyma-project.io/v1alpha1").status != 200) {
        kc.create_installation_crd();
        kc.deploy_installer();
        ASSERT_EQ(kc.create_cr(components, {{"action", "install"}}).status, 201);
    } else {
        Json cr = kc.cr();
        cr["spec"]["components"] = Json::array();
        for (const auto& name : components)
            cr["spec"]["components"].push_back({{"name", name}, {"namespace", "kyma-system"}});
        cr["metadata"]["labels"]["action"] = "install";
        ASSERT_EQ(kc.put(kc.cr_path(), cr).status, 200);
    }
    ASSERT_TRUE(kc.wait_done("Installed"));
}

// Creates or replaces kyma-system/compass-agent-configuration, as kprov's ConnectRuntimeAgent.
void put_secret(KymaCluster& kc, const std::string& token,
                const std::string& connector = "https://connector.sim/graphql") {
    kc.post("/api/v1/namespaces", {{"metadata", {{"name", "kyma-system"}}}});
    Json secret = {{"metadata", {{"name", "compass-agent-configuration"}}},
                   {"stringData",
                    {{"CONNECTOR_URL", connector},
                     {"RUNTIME_ID", "rt-1"},
                     {"TENANT", "tenant-1"},
                     {"TOKEN", token}}}};
    const std::string path = "/api/v1/namespaces/kyma-system/secrets";
    if (kc.post(path, secret).status == 409) {
        ASSERT_EQ(kc.put(path + "/compass-agent-configuration", secret).status, 200);
    }
}

Json agent(KymaCluster& kc) {
    return kc.f.http->get(std::string("/sim/clusters/") + KymaCluster::k_id + "/kyma")
        .json["agent"];
}

std::string connection_state(KymaCluster& kc) {
    Resp r = kc.get(k_connection);
    return r.status == 200 ? r.json["status"].value("connectionState", "") : "";
}

// Installs the agent component, writes the Secret with token tok-1 and waits for `state`.
void connect(KymaCluster& kc, const std::string& state) {
    install(kc, {"compass-runtime-agent"});
    put_secret(kc, "tok-1");
    ASSERT_TRUE(eventually([&] { return connection_state(kc) == state; }));
}

} // namespace

TEST(RuntimeAgent, NoConnectionWithoutTheSecret) {
    KymaCluster kc;
    EXPECT_EQ(kc.get(k_group_version).status, 404);
    EXPECT_EQ(kc.get(k_connection).status, 404);
    install(kc, {"istio", "compass-runtime-agent"});
    EXPECT_EQ(agent(kc)["componentInstalled"], true);
    put_secret(kc, ""); // a TOKEN is needed, as is a CONNECTOR_URL
    put_secret(kc, "tok-1", "");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(kc.get(k_connection).status, 404);
    Json a = agent(kc);
    EXPECT_EQ(a["connected"], false);
    EXPECT_EQ(a["configurations"], 0);
    EXPECT_TRUE(a["state"].is_null());

    put_secret(kc, "tok-1");
    ASSERT_TRUE(eventually([&] { return connection_state(kc) == "Synchronized"; }));
    Json cc = kc.get(k_connection).json;
    EXPECT_EQ(cc["kind"], "CompassConnection");
    EXPECT_EQ(cc["apiVersion"], "compass.kyma-project.io/v1alpha1");
    EXPECT_FALSE(cc["metadata"].contains("namespace"));
    EXPECT_EQ(cc["spec"]["managementInfo"]["connectorUrl"], "https://connector.sim/graphql");
    EXPECT_TRUE(cc["status"]["connectionStatus"]["lastSync"].is_string());
    a = agent(kc);
    EXPECT_EQ(a["connected"], true);
    EXPECT_EQ(a["configurations"], 1);
    EXPECT_EQ(a["state"], "Synchronized");
    // The CRD is served and discovered, and its status is written as for any CRD.
    Resp disc = kc.get(k_group_version);
    ASSERT_EQ(disc.status, 200);
    EXPECT_EQ(disc.json["resources"][0]["name"], "compassconnections");
    EXPECT_EQ(disc.json["resources"][0]["namespaced"], false);
    EXPECT_TRUE(eventually([&] {
        Resp crd = kc.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                          "compassconnections.compass.kyma-project.io");
        return crd.status == 200 && crd.json.contains("status");
    }));
}

TEST(RuntimeAgent, NoConnectionBeforeTheAgentComponentIsInstalled) {
    KymaCluster kc;
    put_secret(kc, "tok-1");
    install(kc, {"istio"});
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(kc.get(k_group_version).status, 404);
    EXPECT_EQ(agent(kc)["componentInstalled"], false);
    // A failed attempt of the component does not count; the retry that succeeds does.
    ASSERT_EQ(kc.knobs({{"failures", {{"compass-runtime-agent", 1}}}}).status, 200);
    install(kc, {"istio", "compass-runtime-agent"});
    ASSERT_TRUE(eventually([&] { return connection_state(kc) == "Synchronized"; }));
    EXPECT_EQ(agent(kc)["configurations"], 1);
}

TEST(RuntimeAgent, StatesFollowEachNewTokenAndTheLastRepeats) {
    KymaCluster kc;
    ASSERT_EQ(kc.knobs({{"agentStates", {"ConnectionFailed", "Synchronized"}}}).status, 200);
    connect(kc, "ConnectionFailed");
    WatchCollector watch(kc.f.sim->url(), "",
                         kc.c(std::string(k_group_version) + "/compassconnections?watch=true"));
    Json first = kc.get(k_connection).json;
    EXPECT_TRUE(first["status"]["connectionStatus"].contains("error"));
    EXPECT_EQ(agent(kc)["connected"], false);
    // The same token again is no reconfiguration.
    put_secret(kc, "tok-1");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(kc.get(k_connection).json["metadata"]["resourceVersion"],
              first["metadata"]["resourceVersion"]);
    // kprov reconfigures after ConnectionFailed: a new token, the next state.
    put_secret(kc, "tok-2");
    ASSERT_TRUE(eventually([&] { return connection_state(kc) == "Synchronized"; }));
    Json a = agent(kc);
    EXPECT_EQ(a["connected"], true);
    EXPECT_EQ(a["configurations"], 2);
    put_secret(kc, "tok-3");
    ASSERT_TRUE(eventually([&] { return agent(kc)["configurations"] == 3; }));
    EXPECT_EQ(connection_state(kc), "Synchronized");
    EXPECT_TRUE(watch.wait_for([](const Json& e) {
        return e["type"] == "MODIFIED" &&
               e["object"]["status"]["connectionState"] == "Synchronized";
    }));
    std::vector<std::string> states;
    for (const auto& e : watch.events())
        states.push_back(e["type"].get<std::string>() + " " +
                         e["object"]["status"].value("connectionState", ""));
    ASSERT_GE(states.size(), 2u);
    EXPECT_EQ(states[0], "ADDED ConnectionFailed");
    EXPECT_EQ(states[1], "MODIFIED Synchronized");
}

TEST(RuntimeAgent, DisabledAgentNeverConnects) {
    KymaCluster kc;
    ASSERT_EQ(kc.knobs({{"agentDisabled", true}}).status, 200);
    install(kc, {"compass-runtime-agent"});
    put_secret(kc, "tok-1");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(kc.get(k_connection).status, 404);
    EXPECT_EQ(agent(kc)["connected"], false);
    ASSERT_EQ(kc.knobs({{"agentDisabled", false}}).status, 200);
    EXPECT_TRUE(eventually([&] { return connection_state(kc) == "Synchronized"; }));
}

TEST(RuntimeAgent, KnobsAreValidatedAndTakenAsClusterDefaults) {
    KymaCluster kc;
    for (const Json& bad : {Json{{"agentStates", "Synchronized"}}, Json{{"agentStates", {1}}},
                            Json{{"agentStates", Json::array()}}, Json{{"agentStates", {""}}},
                            Json{{"agentDisabled", "yes"}}}) {
        Resp r = kc.knobs(bad);
        EXPECT_EQ(r.status, 400) << bad.dump();
        Resp s = kc.f.http->post("/sim/settings", Json{{"clusterDefaults", bad}}.dump());
        EXPECT_EQ(s.status, 400) << bad.dump();
    }
    Json defaults = {{"agentStates", {"MetadataUpdateFailed"}}};
    ASSERT_EQ(kc.f.http->post("/sim/settings", Json{{"clusterDefaults", defaults}}.dump()).status,
              200);
    ASSERT_EQ(kc.f.http->post(kc.f.shoots(), shoot_body("c2").dump()).status, 201);
    Resp c2;
    ASSERT_TRUE(eventually([&] {
        c2 = kc.f.http->get("/sim/clusters/shoot--dev--c2/kyma");
        return c2.status == 200;
    }));
    EXPECT_EQ(c2.json["knobs"]["agentStates"], Json::array({"MetadataUpdateFailed"}));
    EXPECT_EQ(c2.json["knobs"]["agentDisabled"], false);
    EXPECT_EQ(agent(kc)["state"], nullptr); // c1 was created before the defaults
}

TEST(RuntimeAgent, ConnectionsAreStrictCustomResources) {
    KymaCluster kc;
    connect(kc, "Synchronized");
    Json obj = kc.get(k_connection).json;
    Resp list = kc.get(std::string(k_group_version) + "/compassconnections");
    ASSERT_EQ(list.status, 200);
    EXPECT_EQ(list.json["kind"], "CompassConnectionList");
    EXPECT_EQ(list.json["items"].size(), 1u);
    Json unconditional = obj;
    unconditional["metadata"].erase("resourceVersion");
    EXPECT_EQ(kc.put(k_connection, unconditional).status, 422);
    Json changed = obj;
    changed["status"]["connectionState"] = "ConnectionFailed";
    ASSERT_EQ(kc.put(k_connection, changed).status, 200);
    EXPECT_EQ(kc.put(k_connection, obj).status, 409); // stale
    EXPECT_EQ(kc.k->del(kc.c(k_connection)).status, 200);
    EXPECT_EQ(kc.get(k_connection).status, 404);
}

TEST(RuntimeAgent, HibernationPausesTheAgentAndKeepsTheConnection) {
    KymaCluster kc;
    ASSERT_EQ(kc.knobs({{"agentStates", {"Synchronized", "SynchronizationFailed"}}}).status, 200);
    connect(kc, "Synchronized");
    Json before = kc.get(k_connection).json;
    // A slow agent: the next token is acted on 0.8 s after it is seen, while hibernated.
    ASSERT_EQ(kc.f.http->post("/sim/settings", R"({"kymaComponentSeconds":0.8})").status, 200);
    put_secret(kc, "tok-2");
    auto hibernate = [&](bool on) {
        kc.f.http->patch(kc.f.shoot("c1"),
                         Json{{"spec", {{"hibernation", {{"enabled", on}}}}}}.dump(),
                         "application/merge-patch+json");
        return eventually(
            [&] { return kc.f.http->get(kc.f.shoot("c1")).json["status"]["hibernated"] == on; });
    };
    ASSERT_TRUE(hibernate(true));
    EXPECT_EQ(kc.get(k_connection).status, 503);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    Json paused = agent(kc);
    EXPECT_EQ(paused["configurations"], 2);
    EXPECT_EQ(paused["state"], "Synchronized");
    ASSERT_TRUE(hibernate(false));
    // The same object, and the write that fell due while hibernated comes after the wake-up.
    EXPECT_TRUE(eventually([&] { return connection_state(kc) == "SynchronizationFailed"; }));
    Json after = kc.get(k_connection).json;
    EXPECT_EQ(after["metadata"]["uid"], before["metadata"]["uid"]);
    EXPECT_EQ(agent(kc)["connected"], true);
}
