// The Store contract, desired-state part (src/engine/store.hpp, "Desired state"): protection,
// expiry and a runtime's events, on every store.

#include "engine/error.hpp"
#include "stores/store_contract.hpp"

#include <optional>
#include <vector>

namespace kprov::engine {
namespace {

using namespace std::chrono_literals;
using kprov::testing::k_t0;
using store_contract::minimal_runtime;
using store_contract::StoreContract;

RuntimeEvent event(const std::string& kind, Timestamp at) {
    return {at, kind, kind + " by tester@host"};
}

TEST_P(StoreContract, ARuntimeStartsUnprotectedWithoutExpiryOrEvents) {
    const Runtime r = idle_runtime();
    EXPECT_EQ(m_store->lifecycle_of(r.id), RuntimeLifecycle{});
    EXPECT_TRUE(m_store->events_of(r.id).empty());
    EXPECT_EQ(m_store->lifecycle_of(new_uuid()), RuntimeLifecycle{});
    EXPECT_EQ(m_store->lifecycle_of("not-a-uuid"), RuntimeLifecycle{});
}

TEST_P(StoreContract, ProtectionIsRecordedOnceWithItsEvent) {
    const Runtime r = idle_runtime();
    EXPECT_TRUE(m_store->set_protected(r.id, true, event("Protect", k_t0 + 1s)));
    EXPECT_TRUE(m_store->lifecycle_of(r.id).is_protected);
    // Protecting a protected runtime changes nothing and records nothing.
    EXPECT_FALSE(m_store->set_protected(r.id, true, event("Protect", k_t0 + 2s)));
    EXPECT_TRUE(m_store->set_protected(r.id, false, event("Unprotect", k_t0 + 3s)));
    EXPECT_FALSE(m_store->lifecycle_of(r.id).is_protected);
    EXPECT_EQ(m_store->events_of(r.id), (std::vector<RuntimeEvent>{event("Protect", k_t0 + 1s),
                                                                   event("Unprotect", k_t0 + 3s)}));
}

TEST_P(StoreContract, ANewRuntimesLifecycleIsWrittenWithItAndNotWithoutIt) {
    Runtime r = minimal_runtime(new_uuid(), k_t0);
    const NewRuntimeLifecycle lifecycle{{true, k_t0 + 2h},
                                        {event("Protect", k_t0), event("Lifetime", k_t0)}};
    m_store->insert_runtime(r, kprov::testing::new_operation(r.id, OperationType::Provision, k_t0),
                            &lifecycle);
    EXPECT_EQ(m_store->lifecycle_of(r.id), lifecycle.attributes);
    EXPECT_EQ(m_store->events_of(r.id), lifecycle.events);
    EXPECT_EQ(m_store->expired_runtimes(k_t0 + 3h, 10), std::vector<std::string>{})
        << "protected: not deprovisioned when it expires";

    // A refused insert writes no lifecycle either: the name's owner keeps its own.
    Runtime same_name = minimal_runtime(new_uuid(), k_t0);
    same_name.gardener.name = r.gardener.name;
    same_name.gardener.project_name = r.gardener.project_name;
    const NewRuntimeLifecycle other{{false, k_t0 + 1h}, {event("Lifetime", k_t0 + 1s)}};
    EXPECT_THROW(m_store->insert_runtime(
                     same_name,
                     kprov::testing::new_operation(same_name.id, OperationType::Provision, k_t0),
                     &other),
                 ShootNameTaken);
    EXPECT_EQ(m_store->lifecycle_of(same_name.id), RuntimeLifecycle{});
    EXPECT_TRUE(m_store->events_of(same_name.id).empty());
    EXPECT_EQ(m_store->lifecycle_of(r.id), lifecycle.attributes);
}

TEST_P(StoreContract, AProtectedRuntimesDeprovisioningIsRefusedInTheInsertItself) {
    const Runtime r = idle_runtime();
    m_store->set_protected(r.id, true, event("Protect", k_t0 + 1s));
    for (const auto type : {OperationType::Deprovision, OperationType::DeprovisionNoInstall})
        EXPECT_THROW(
            m_store->insert_operation(kprov::testing::new_operation(r.id, type, k_t0 + 2s)),
            RuntimeProtected);
    EXPECT_EQ(m_store->operations_of(r.id).size(), 1U) << "nothing was written";
    // Other operations go on; unprotected, so does deprovisioning.
    Operation hibernate = kprov::testing::new_operation(r.id, OperationType::Hibernate, k_t0 + 3s);
    hibernate.state = OperationState::Succeeded;
    EXPECT_NO_THROW(m_store->insert_operation(hibernate));
    m_store->set_protected(r.id, false, event("Unprotect", k_t0 + 4s));
    EXPECT_NO_THROW(m_store->insert_operation(
        kprov::testing::new_operation(r.id, OperationType::Deprovision, k_t0 + 5s)));
}

TEST_P(StoreContract, LifecycleChangesOfAnUnknownRuntimeAreNotFoundAndWriteNothing) {
    const std::string missing = new_uuid();
    EXPECT_THROW(m_store->set_protected(missing, true, event("Protect", k_t0)), NotFound);
    EXPECT_THROW(m_store->set_expiry(missing, k_t0, event("Lifetime", k_t0)), NotFound);
    EXPECT_THROW(m_store->record_event(missing, event("Adopt", k_t0)), NotFound);
    EXPECT_THROW(m_store->set_protected("not-a-uuid", true, event("Protect", k_t0)), NotFound);
    EXPECT_TRUE(m_store->events_of(missing).empty());
}

TEST_P(StoreContract, ExpiredRuntimesAreTheLiveUnprotectedOnesDueByNowEarliestFirst) {
    const Runtime later = idle_runtime();
    const Runtime earlier = idle_runtime();
    const Runtime guarded = idle_runtime();
    const Runtime future = idle_runtime();
    const Runtime gone = idle_runtime();
    const Runtime forever = idle_runtime();
    m_store->set_expiry(later.id, k_t0 + 20s, event("Lifetime", k_t0));
    m_store->set_expiry(earlier.id, k_t0 + 10s, event("Lifetime", k_t0));
    m_store->set_expiry(guarded.id, k_t0 + 5s, event("Lifetime", k_t0));
    m_store->set_protected(guarded.id, true, event("Protect", k_t0));
    m_store->set_expiry(future.id, k_t0 + 1h, event("Lifetime", k_t0));
    m_store->set_expiry(gone.id, k_t0 + 1s, event("Lifetime", k_t0));
    raw("UPDATE cluster SET deleted = true WHERE id = '" + gone.id + "'");
    (void)forever;

    EXPECT_EQ(m_store->expired_runtimes(k_t0 + 30s, 10),
              (std::vector<std::string>{earlier.id, later.id}));
    EXPECT_EQ(m_store->expired_runtimes(k_t0 + 30s, 1), (std::vector<std::string>{earlier.id}));
    EXPECT_EQ(m_store->expired_runtimes(k_t0 + 10s, 10), (std::vector<std::string>{earlier.id}));
    EXPECT_TRUE(m_store->expired_runtimes(k_t0, 10).empty());

    // Cleared, an expiry is gone; unprotected, the protected one is due again.
    EXPECT_TRUE(m_store->set_expiry(later.id, std::nullopt, event("Lifetime", k_t0 + 1s)));
    EXPECT_FALSE(m_store->lifecycle_of(later.id).expires_at);
    EXPECT_FALSE(m_store->set_expiry(later.id, std::nullopt, event("Lifetime", k_t0 + 2s)));
    m_store->set_protected(guarded.id, false, event("Unprotect", k_t0));
    EXPECT_EQ(m_store->expired_runtimes(k_t0 + 30s, 10),
              (std::vector<std::string>{guarded.id, earlier.id}));
    EXPECT_EQ(m_store->lifecycle_of(future.id).expires_at, k_t0 + 1h);
}

TEST_P(StoreContract, EventsKeepTheirOrderAndText) {
    const Runtime r = idle_runtime();
    const RuntimeEvent adopt{k_t0 + 1s, "Adopt", "adopted shoot \"orders\" by ops@host: ünïcode"};
    const RuntimeEvent note{k_t0, "Note", ""};
    m_store->record_event(r.id, adopt);
    m_store->record_event(r.id, note); // earlier time, later entry: the order is the order written
    EXPECT_EQ(m_store->events_of(r.id), (std::vector<RuntimeEvent>{adopt, note}));
    const Runtime other = idle_runtime();
    EXPECT_TRUE(m_store->events_of(other.id).empty());
}

} // namespace
} // namespace kprov::engine
