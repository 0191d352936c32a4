#include "engine/error.hpp"
#include "engine/input/provider_config.hpp"
#include "engine/model.hpp"

#include <bitset>
#include <gtest/gtest.h>
#include <mutex>
#include <regex>
#include <set>
#include <thread>
#include <vector>

namespace kprov::engine {
namespace {

TEST(OperationType, DbAndApiSpellings) {
    EXPECT_EQ(to_db(OperationType::DeprovisionNoInstall), "DEPROVISION_NO_INSTALL");
    EXPECT_EQ(to_api(OperationType::DeprovisionNoInstall), "DeprovisionNoInstall");
    EXPECT_EQ(to_api(OperationType::ProvisionNoInstall), "Provision"); // as the original reports it
    EXPECT_EQ(to_db(OperationType::WakeUp), "WAKE_UP");
    for (auto t : {OperationType::Provision, OperationType::Upgrade, OperationType::Deprovision,
                   OperationType::ReconnectRuntime, OperationType::UpgradeShoot,
                   OperationType::Hibernate, OperationType::ProvisionNoInstall,
                   OperationType::DeprovisionNoInstall, OperationType::WakeUp})
        EXPECT_EQ(operation_type_from_db(to_db(t)), t);
    EXPECT_FALSE(operation_type_from_db("provision"));
}

TEST(OperationState, ReadsEverySpelling) {
    EXPECT_EQ(operation_state_from_text("InProgress"), OperationState::InProgress);
    EXPECT_EQ(operation_state_from_text("in_progress"), OperationState::InProgress);
    EXPECT_EQ(operation_state_from_text("IN_PROGRESS"), OperationState::InProgress);
    EXPECT_EQ(operation_state_from_text("failed"), OperationState::Failed);
    EXPECT_FALSE(operation_state_from_text("Pending"));
    EXPECT_EQ(operation_state_from_db("SUCCEEDED"), OperationState::Succeeded);
    EXPECT_EQ(to_api(OperationState::Succeeded), "Succeeded");
}

TEST(Uuid, IsRandomVersion4) {
    const std::regex shape("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        const auto id = new_uuid();
        EXPECT_TRUE(std::regex_match(id, shape)) << id;
        seen.insert(id);
    }
    EXPECT_EQ(seen.size(), 1000u);
}

// The 128 bits of "xxxxxxxx-xxxx-Mxxx-Nxxx-xxxxxxxxxxxx" as hex digits, dashes left out.
std::bitset<128> uuid_bits(const std::string& id) {
    std::bitset<128> bits;
    int digit = 0;
    for (const char c : id) {
        if (c == '-')
            continue;
        const int value = c <= '9' ? c - '0' : c - 'a' + 10;
        for (int i = 0; i < 4; ++i)
            bits[static_cast<std::size_t>(4 * digit + i)] = ((value >> (3 - i)) & 1) != 0;
        ++digit;
    }
    return bits;
}

TEST(Uuid, EveryBitButVersionAndVariantVaries) {
    // Bit 0 is the first hex digit's high bit. Version 4 is 0100 in bits 48-51, the RFC 4122
    // variant 10 in bits 64-65; the other 122 bits are random.
    std::bitset<128> ones;
    std::bitset<128> zeros;
    for (int i = 0; i < 1000; ++i) {
        const auto bits = uuid_bits(new_uuid());
        ones |= bits;
        zeros |= ~bits;
    }
    for (std::size_t bit = 0; bit < 128; ++bit) {
        const bool fixed = (bit >= 48 && bit < 52) || bit == 64 || bit == 65;
        if (!fixed) {
            EXPECT_TRUE(ones[bit] && zeros[bit]) << "bit " << bit << " never changes";
            continue;
        }
        const bool one = bit == 49 || bit == 64;
        EXPECT_EQ(ones[bit], one) << "bit " << bit;
        EXPECT_EQ(zeros[bit], !one) << "bit " << bit;
    }
}

TEST(Uuid, UniqueAcrossThreads) {
    constexpr int k_threads = 8;
    constexpr int k_each = 2000;
    std::mutex mutex;
    std::set<std::string> seen;
    std::vector<std::thread> threads;
    for (int t = 0; t < k_threads; ++t)
        threads.emplace_back([&] {
            std::vector<std::string> mine;
            for (int i = 0; i < k_each; ++i)
                mine.push_back(new_uuid());
            const std::lock_guard lock(mutex);
            seen.insert(mine.begin(), mine.end());
        });
    for (auto& thread : threads)
        thread.join();
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(k_threads * k_each));
}

TEST(ProviderConfig, EncodesTheOriginalShapesWithNulls) {
    EXPECT_EQ(encode_provider_config(GcpConfig{{"a", "b"}}), R"({"zones":["a","b"]})");
    EXPECT_EQ(encode_provider_config(AzureConfig{"10.0.0.0/16", std::nullopt, std::nullopt,
                                                 std::nullopt, std::nullopt}),
              R"({"azureZones":null,"enableNatGateway":null,"idleConnectionTimeoutMinutes":null,)"
              R"("vnetCidr":"10.0.0.0/16","zones":null})");
    EXPECT_EQ(encode_provider_config(AwsConfig{"10.1.0.0/16", {AwsZone{"z", "p", "i", "w"}}}),
              R"({"awsZones":[{"internalCidr":"i","name":"z","publicCidr":"p","workerCidr":"w"}],)"
              R"("vpcCidr":"10.1.0.0/16"})");
}

TEST(ProviderConfig, DecodesInTheOriginalDetectionOrder) {
    EXPECT_TRUE(std::holds_alternative<GcpConfig>(decode_provider_config(R"({"zones":["a"]})")));
    // An empty object fits GCP first, as in the original's strict decoding order.
    EXPECT_TRUE(std::holds_alternative<GcpConfig>(decode_provider_config("{}")));
    const auto azure = decode_provider_config(
        R"({"vnetCidr":"10.0.0.0/16","zones":null,"azureZones":[{"name":1,"cidr":"10.0.0.0/19"}],)"
        R"("enableNatGateway":true,"idleConnectionTimeoutMinutes":null})");
    ASSERT_TRUE(std::holds_alternative<AzureConfig>(azure));
    const auto& a = std::get<AzureConfig>(azure);
    EXPECT_EQ(a.vnet_cidr, "10.0.0.0/16");
    EXPECT_FALSE(a.zones);
    ASSERT_TRUE(a.azure_zones);
    EXPECT_EQ((*a.azure_zones)[0], (AzureZone{1, "10.0.0.0/19"}));
    EXPECT_EQ(a.enable_nat_gateway, true);
    EXPECT_FALSE(a.idle_connection_timeout_minutes);
    EXPECT_TRUE(std::holds_alternative<AwsConfig>(
        decode_provider_config(R"({"vpcCidr":"x","awsZones":[]})")));
    const auto os = decode_provider_config(
        R"({"zones":["z"],"floatingPoolName":"fp","cloudProfileName":"cp","loadBalancerProvider":"f5"})");
    ASSERT_TRUE(std::holds_alternative<OpenStackConfig>(os));
    EXPECT_EQ(std::get<OpenStackConfig>(os).load_balancer_provider, "f5");
}

TEST(ProviderConfig, RoundTripsEveryProvider) {
    const std::vector<ProviderConfig> all = {
        GcpConfig{{"europe-west3-a"}},
        AzureConfig{"v", std::vector<std::string>{"1"}, std::vector<AzureZone>{{2, "c"}}, false, 4},
        AwsConfig{"v", {AwsZone{"a", "b", "c", "d"}}},
        OpenStackConfig{{"z"}, "fp", "cp", "lb"},
    };
    for (const auto& c : all)
        EXPECT_TRUE(decode_provider_config(encode_provider_config(c)) == c) << provider_type(c);
}

TEST(ProviderConfig, RefusesWhatFitsNoProvider) {
    for (const char* bad : {"", "[]", "null", R"({"unknown":1})", R"({"zones":"a"})",
                            R"({"vnetCidr":5})", "{not json"}) {
        try {
            decode_provider_config(bad);
            ADD_FAILURE() << "accepted " << bad;
        } catch (const ValidationError& e) {
            EXPECT_NE(
                std::string(e.what()).find("json data does not match any of Gardener providers"),
                std::string::npos);
        }
    }
}

} // namespace
} // namespace kprov::engine
