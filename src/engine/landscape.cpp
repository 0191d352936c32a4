#include "engine/landscape.hpp"

#include <array>
#include <utility>

namespace kprov::engine {
namespace {

constexpr std::array<std::pair<VersionClass, std::string_view>, 5> k_class_names{{
    {VersionClass::Unavailable, "unavailable"},
    {VersionClass::Preview, "preview"},
    {VersionClass::Supported, "supported"},
    {VersionClass::Deprecated, "deprecated"},
    {VersionClass::Expired, "expired"},
}};

// The stages Gardener derives from a version entry (helper/cloudprofile.go:28-95).
std::vector<LifecycleStage> stages_of(const ExpirableVersion& v) {
    if (!v.lifecycle.empty())
        return v.lifecycle;
    std::vector<LifecycleStage> stages;
    if (!v.classification && !v.expiration_date)
        return stages;
    stages.push_back({v.classification.value_or(VersionClass::Supported), std::nullopt});
    if (v.expiration_date)
        stages.push_back({VersionClass::Expired, v.expiration_date});
    return stages;
}

} // namespace

std::string_view to_text(VersionClass c) {
    for (const auto& [value, name] : k_class_names)
        if (value == c)
            return name;
    return "unavailable";
}

std::optional<VersionClass> version_class_from_text(std::string_view text) {
    for (const auto& [value, name] : k_class_names)
        if (name == text)
            return value;
    return std::nullopt;
}

VersionClass effective_classification(const ExpirableVersion& v, Timestamp now) {
    const auto stages = stages_of(v);
    if (stages.empty())
        return VersionClass::Supported;
    VersionClass current = VersionClass::Unavailable;
    // A missing start time is the zero time: always in the past. "Strictly before now".
    for (const auto& stage : stages)
        if (!stage.start_time || *stage.start_time < now)
            current = stage.classification;
    return current;
}

std::optional<Timestamp> expiry_of(const ExpirableVersion& v) {
    if (v.lifecycle.empty())
        return v.expiration_date;
    for (const auto& stage : v.lifecycle)
        if (stage.classification == VersionClass::Expired)
            return stage.start_time ? stage.start_time : std::optional<Timestamp>(Timestamp{});
    return std::nullopt;
}

CachedLandscape::CachedLandscape(Landscape& inner, const Clock& clock,
                                 std::chrono::seconds lifetime)
    : m_inner(inner)
    , m_clock(clock)
    , m_lifetime(lifetime) {}

template <typename T, typename Read> T CachedLandscape::cached(Entry<T>& entry, Read read) {
    // Read under the lock: concurrent requests wait for one answer rather than all asking.
    std::lock_guard lock(m_mutex);
    const Timestamp now = m_clock.now();
    const bool fresh = entry.value && (m_lifetime.count() == 0 || now - entry.read_at < m_lifetime);
    if (!fresh) {
        entry.value = read();
        entry.read_at = now;
    }
    return *entry.value;
}

std::optional<CloudProfile> CachedLandscape::cloud_profile(const CloudProfileRef& ref) {
    Entry<std::optional<CloudProfile>>* entry = nullptr;
    {
        std::lock_guard lock(m_mutex);
        const std::string key = ref.kind + "/" + ref.name;
        // Requests name the profiles: past a bound, names not seen yet are not remembered.
        if (auto it = m_profiles.find(key); it != m_profiles.end())
            entry = &it->second;
        else if (m_profiles.size() < 64)
            entry = &m_profiles[key];
    }
    if (entry == nullptr)
        return m_inner.cloud_profile(ref);
    return cached(*entry, [&] { return m_inner.cloud_profile(ref); });
}

std::vector<CloudProfile> CachedLandscape::cloud_profiles() {
    return cached(m_all, [&] { return m_inner.cloud_profiles(); });
}

std::vector<CredentialsBinding> CachedLandscape::credentials_bindings() {
    return cached(m_credentials, [&] { return m_inner.credentials_bindings(); });
}

std::vector<SecretBinding> CachedLandscape::secret_bindings() {
    return cached(m_secrets, [&] { return m_inner.secret_bindings(); });
}

} // namespace kprov::engine
