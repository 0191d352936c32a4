#include "stores/row_mapping.hpp"

#include "engine/error.hpp"
#include "engine/input/hibernation_schedule.hpp"
#include "engine/input/provider_config.hpp"
#include "engine/util/text.hpp"
#include "stores/store_common.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

namespace kprov::stores {

using engine::GardenerConfig;
using engine::Operation;
using engine::OperationState;
using engine::OperationType;

DbValue db_text(const std::optional<std::string>& value) {
    return value ? DbValue(*value) : DbValue();
}

DbValue db_time(const std::optional<Timestamp>& value) {
    return value ? DbValue(format_db_time(*value)) : DbValue();
}

DbValue db_bool(const std::optional<bool>& value) {
    return value ? DbValue(*value) : DbValue();
}

std::optional<std::string> RowView::optional_text(int column) const {
    if (is_null(column))
        return std::nullopt;
    return text(column);
}

std::string RowView::text_or_empty(int column) const {
    return is_null(column) ? std::string() : text(column);
}

bool RowView::boolean_or_false(int column) const {
    return !is_null(column) && boolean(column);
}

Timestamp RowView::time(int column, std::string_view what) const {
    const auto value = optional_time(column, what);
    if (!value)
        throw StoreError("the stored " + std::string(what) + " is NULL");
    return *value;
}

std::optional<Timestamp> RowView::optional_time(int column, std::string_view what) const {
    if (is_null(column))
        return std::nullopt;
    const std::string stored = text(column);
    const auto parsed = parse_db_time(stored);
    if (!parsed)
        throw StoreError("the stored " + std::string(what) + " \"" + stored +
                         "\" is not a timestamp");
    return parsed;
}

std::string qualified(std::string_view names, std::string_view alias) {
    std::string out;
    while (!names.empty()) {
        const auto comma = names.find(',');
        std::string_view name = names.substr(0, comma);
        while (!name.empty() && name.front() == ' ')
            name.remove_prefix(1);
        if (!out.empty())
            out += ", ";
        out.append(alias).append(".").append(name);
        names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
    }
    return out;
}

std::string cluster_columns_without_kubeconfig(std::string_view alias) {
    std::string columns = qualified(k_cluster_columns, alias);
    const std::string secret =
        std::string(alias) + ".kubeconfig, " + std::string(alias) + ".is_kubeconfig_encrypted";
    columns.replace(columns.find(secret), secret.size(), "NULL, NULL");
    return columns;
}

namespace {

OperationType type_from_db(const std::string& text) {
    const auto type = engine::operation_type_from_db(text);
    if (!type)
        throw StoreError("the stored operation type \"" + text + "\" is unknown to this kprov");
    return *type;
}

OperationState state_from_db(const std::string& text) {
    const auto state = engine::operation_state_from_db(text);
    if (!state)
        throw StoreError("the stored operation state \"" + text + "\" is unknown to this kprov");
    return *state;
}

int int_column(const RowView& row, int column) {
    return static_cast<int>(row.integer(column));
}

std::optional<bool> optional_boolean(const RowView& row, int column) {
    if (row.is_null(column))
        return std::nullopt;
    return row.boolean(column);
}

} // namespace

// --- operation -------------------------------------------------------------------------------

Operation read_operation(const RowView& row, int first) {
    int c = first;
    Operation op;
    op.id = row.text(c++);
    op.type = type_from_db(row.text(c++));
    op.state = state_from_db(row.text(c++));
    op.message = row.text_or_empty(c++);
    op.start_timestamp = row.time(c++, "operation.start_timestamp");
    op.end_timestamp = row.optional_time(c++, "operation.end_timestamp");
    op.cluster_id = row.text(c++);
    op.stage = row.text(c++);
    op.last_transition = row.optional_time(c++, "operation.last_transition");
    op.last_error.message = row.text_or_empty(c++);
    op.last_error.reason = row.text_or_empty(c++);
    op.last_error.component = row.text_or_empty(c++);
    auto owner = row.optional_text(c++);
    auto expires = row.optional_time(c++, "operation.lease_expires_at");
    if (owner && expires)
        op.lease = engine::Lease{std::move(*owner), *expires};
    op.next_run_at = row.time(c++, "operation.next_run_at");
    op.attempts = int_column(row, c++);
    return op;
}

std::vector<ColumnValue> operation_values(const Operation& op) {
    std::vector<ColumnValue> values = {
        {"id", op.id},
        {"type", std::string(to_db(op.type))},
        {"start_timestamp", format_db_time(op.start_timestamp)},
        {"cluster_id", op.cluster_id},
        {"lease_owner", op.lease ? DbValue(op.lease->owner) : DbValue()},
        {"lease_expires_at", op.lease ? db_time(op.lease->expires_at) : DbValue()},
        {"attempts", std::int64_t{op.attempts}},
    };
    for (auto& v : operation_progress_values(op))
        values.push_back(std::move(v));
    return values;
}

std::vector<ColumnValue> operation_progress_values(const Operation& op) {
    return {
        {"state", std::string(to_db(op.state))},
        {"message", op.message},
        {"end_timestamp", db_time(op.end_timestamp)},
        {"stage", op.stage},
        {"last_transition", db_time(op.last_transition)},
        {"err_message", op.last_error.message},
        {"reason", op.last_error.reason},
        {"component", op.last_error.component},
        {"next_run_at", format_db_time(op.next_run_at)},
    };
}

engine::StageTransition read_transition(const RowView& row, int first) {
    int c = first;
    engine::StageTransition t;
    t.operation_id = row.text(c++);
    t.from_stage = row.text_or_empty(c++);
    t.to_stage = row.text(c++);
    t.state = state_from_db(row.text(c++));
    t.message = row.text_or_empty(c++);
    t.at = row.time(c++, "operation_transition.at");
    return t;
}

std::vector<ColumnValue> transition_values(const std::string& operation_id,
                                           const engine::StageTransition& t) {
    return {
        {"operation_id", operation_id}, {"from_stage", t.from_stage},
        {"to_stage", t.to_stage},       {"state", std::string(to_db(t.state))},
        {"message", t.message},         {"at", format_db_time(t.at)},
    };
}

// --- gardener_config -------------------------------------------------------------------------

namespace {

// gardener_config.cloud_profile: {"kind": ..., "name": ...}; NULL (or anything unreadable, which
// only a hand-edited row holds) reads as none, so the shoot keeps its provider's default.
std::optional<engine::CloudProfileRef>
cloud_profile_from_db(const std::optional<std::string>& text) {
    if (!text)
        return std::nullopt;
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("kind") ||
        !j["kind"].is_string())
        return std::nullopt;
    return engine::CloudProfileRef{j["kind"].get<std::string>(), j["name"].get<std::string>()};
}

std::optional<std::string> cloud_profile_to_db(const std::optional<engine::CloudProfileRef>& ref) {
    if (!ref)
        return std::nullopt;
    return nlohmann::json{{"kind", ref->kind}, {"name", ref->name}}.dump();
}

} // namespace

GardenerConfig read_gardener_config(const RowView& row, int first) {
    int c = first;
    GardenerConfig g;
    g.id = row.text(c++);
    g.name = row.text(c++);
    g.project_name = row.text(c++);
    g.kubernetes_version = row.text(c++);
    g.volume_size_gb = volume_from_db(row.optional_text(c++));
    g.machine_type = row.text(c++);
    g.machine_image = row.optional_text(c++);
    g.machine_image_version = row.optional_text(c++);
    g.region = row.text(c++);
    g.provider = row.text(c++);
    g.purpose = row.optional_text(c++);
    g.licence_type = row.optional_text(c++);
    g.seed = row.text(c++);
    g.target_secret = row.text(c++);
    g.disk_type = row.optional_text(c++);
    g.worker_cidr = row.text(c++);
    g.pods_cidr = row.optional_text(c++);
    g.services_cidr = row.optional_text(c++);
    g.auto_scaler_min = int_column(row, c++);
    g.auto_scaler_max = int_column(row, c++);
    g.max_surge = int_column(row, c++);
    g.max_unavailable = int_column(row, c++);
    g.enable_kubernetes_version_auto_update = row.boolean(c++);
    g.enable_machine_image_version_auto_update = row.boolean(c++);
    g.exposure_class_name = row.optional_text(c++);
    g.provider_config = provider_config_from_db(row.optional_text(c++), g.provider);
    g.shoot_networking_filter_disabled = optional_boolean(row, c++);
    g.control_plane_failure_tolerance = row.optional_text(c++);
    g.eu_access = row.boolean(c++);
    g.hibernation_schedules = engine::decode_hibernation_schedules(row.optional_text(c++));
    g.cloud_profile = cloud_profile_from_db(row.optional_text(c++));
    return g;
}

std::vector<ColumnValue> gardener_values(const GardenerConfig& g) {
    return {
        {"name", g.name},
        {"project_name", g.project_name},
        {"kubernetes_version", g.kubernetes_version},
        {"volume_size_gb", db_text(volume_to_db(g.volume_size_gb))},
        {"machine_type", g.machine_type},
        {"machine_image", db_text(g.machine_image)},
        {"machine_image_version", db_text(g.machine_image_version)},
        {"region", g.region},
        {"provider", g.provider},
        {"purpose", db_text(g.purpose)},
        {"licence_type", db_text(g.licence_type)},
        {"seed", g.seed},
        {"target_secret", g.target_secret},
        {"disk_type", db_text(g.disk_type)},
        {"worker_cidr", g.worker_cidr},
        {"pods_cidr", db_text(g.pods_cidr)},
        {"services_cidr", db_text(g.services_cidr)},
        {"auto_scaler_min", std::int64_t{g.auto_scaler_min}},
        {"auto_scaler_max", std::int64_t{g.auto_scaler_max}},
        {"max_surge", std::int64_t{g.max_surge}},
        {"max_unavailable", std::int64_t{g.max_unavailable}},
        {"enable_kubernetes_version_auto_update", g.enable_kubernetes_version_auto_update},
        {"enable_machine_image_version_auto_update", g.enable_machine_image_version_auto_update},
        {"exposure_class_name", db_text(g.exposure_class_name)},
        {"provider_specific_config", engine::encode_provider_config(g.provider_config)},
        {"shoot_networking_filter_disabled", db_bool(g.shoot_networking_filter_disabled)},
        {"control_plane_failure_tolerance", db_text(g.control_plane_failure_tolerance)},
        {"eu_access", g.eu_access},
        {"hibernation_schedules",
         db_text(engine::encode_hibernation_schedules(g.hibernation_schedules))},
        {"cloud_profile", db_text(cloud_profile_to_db(g.cloud_profile))},
    };
}

// --- cluster ---------------------------------------------------------------------------------

engine::Runtime read_cluster(const RowView& row, const SecretCipher& cipher, int first) {
    int c = first;
    engine::Runtime r;
    r.id = row.text(c++);
    r.tenant = row.text(c++);
    r.sub_account_id = row.text_or_empty(c++);
    r.creation_timestamp = row.time(c++, "cluster.creation_timestamp");
    r.deleted = row.boolean_or_false(c++);
    r.name = row.text_or_empty(c++);
    r.description = row.text_or_empty(c++);
    r.labels_json = row.is_null(c) ? "{}" : row.text(c);
    ++c;
    ++c; // active_kyma_config_id: the store reads the config
    const auto kubeconfig = row.optional_text(c++);
    const bool encrypted = row.boolean_or_false(c++);
    if (kubeconfig)
        r.kubeconfig = read_secret(cipher, *kubeconfig, encrypted, kubeconfig_context(r.id));
    return r;
}

std::vector<ColumnValue> cluster_values(const engine::Runtime& r, const SecretCipher& cipher) {
    return {
        {"id", r.id},
        {"tenant", r.tenant},
        {"sub_account_id", r.sub_account_id},
        {"creation_timestamp", format_db_time(r.creation_timestamp)},
        {"deleted", r.deleted},
        {"runtime_name", r.name},
        {"description", r.description},
        {"labels", r.labels_json},
        {"active_kyma_config_id", r.kyma ? DbValue(r.kyma->id) : DbValue()},
        {"kubeconfig", r.kubeconfig
                           ? DbValue(cipher.encrypt(*r.kubeconfig, kubeconfig_context(r.id)))
                           : DbValue()},
        {"is_kubeconfig_encrypted", r.kubeconfig.has_value()},
    };
}

// --- children of gardener_config and cluster --------------------------------------------------

engine::OidcConfig read_oidc_config(const RowView& row, int first) {
    int c = first;
    engine::OidcConfig o;
    o.client_id = row.text(c++);
    o.groups_claim = row.text(c++);
    o.issuer_url = row.text(c++);
    o.username_claim = row.text(c++);
    o.username_prefix = row.text(c++);
    return o;
}

engine::DnsProvider read_dns_provider(const RowView& row, int first) {
    int c = first;
    engine::DnsProvider p;
    p.domains_include = split_domains(row.text(c++));
    p.primary = row.boolean(c++);
    p.secret_name = row.text(c++);
    p.type = row.text(c++);
    return p;
}

std::vector<ColumnValue> oidc_values(const std::string& gardener_id, const engine::OidcConfig& o) {
    return {
        {"id", gardener_id},
        {"gardener_config_id", gardener_id},
        {"client_id", o.client_id},
        {"groups_claim", o.groups_claim},
        {"issuer_url", o.issuer_url},
        {"username_claim", o.username_claim},
        {"username_prefix", o.username_prefix},
    };
}

std::vector<ColumnValue> signing_algorithm_values(const std::string& id,
                                                  const std::string& gardener_id,
                                                  const std::string& algorithm) {
    return {{"id", id}, {"oidc_config_id", gardener_id}, {"algorithm", algorithm}};
}

std::vector<ColumnValue> dns_config_values(const std::string& id, const std::string& gardener_id,
                                           const engine::DnsConfig& d) {
    return {{"id", id}, {"domain", d.domain}, {"gardener_config_id", gardener_id}};
}

std::vector<ColumnValue> dns_provider_values(const std::string& id,
                                             const std::string& dns_config_id,
                                             const engine::DnsProvider& p) {
    return {
        {"id", id},
        {"dns_config_id", dns_config_id},
        {"domains_include", join_domains(p.domains_include)},
        {"is_primary", p.primary},
        {"secret_name", p.secret_name},
        {"type", p.type},
    };
}

std::vector<ColumnValue> administrator_values(const std::string& id, const std::string& cluster_id,
                                              const std::string& user_id,
                                              const SecretCipher& cipher) {
    return {
        {"id", id},
        {"cluster_id", cluster_id},
        {"user_id", cipher.encrypt(user_id, administrator_context(cluster_id))},
        {"is_user_id_encrypted", true},
    };
}

// --- list ------------------------------------------------------------------------------------

engine::RuntimeSummary read_summary(const RowView& row, int first) {
    int c = first;
    engine::RuntimeSummary s;
    s.id = row.text(c++);
    s.name = row.text_or_empty(c++);
    s.shoot_name = row.text_or_empty(c++);
    s.provider = row.text_or_empty(c++);
    s.region = row.text_or_empty(c++);
    s.tenant = row.text(c++);
    s.creation_timestamp = row.time(c++, "cluster.creation_timestamp");
    s.deleted = row.boolean_or_false(c++);
    if (!row.is_null(c))
        s.last_operation = read_operation(row, c);
    return s;
}

// --- secrets and small conversions -----------------------------------------------------------

std::string read_secret(const SecretCipher& cipher, const std::string& stored, bool encrypted,
                        const std::string& context) {
    return encrypted ? cipher.decrypt(stored, context) : cipher.plaintext(stored, context);
}

std::optional<std::string> volume_to_db(std::optional<int> gb) {
    if (!gb)
        return std::nullopt;
    return std::to_string(*gb);
}

std::optional<int> volume_from_db(const std::optional<std::string>& text) {
    if (!text || text->empty())
        return std::nullopt;
    int value = 0;
    const char* end = text->data() + text->size();
    const auto [ptr, ec] = std::from_chars(text->data(), end, value);
    if (ec != std::errc() || ptr != end)
        throw StoreError("the stored gardener_config.volume_size_gb \"" + *text +
                         "\" is not an integer");
    return value;
}

engine::ProviderConfig provider_config_from_db(const std::optional<std::string>& json,
                                               std::string_view provider) {
    if (!json) {
        const std::string p = ascii_lower(provider);
        if (p == "aws")
            return engine::AwsConfig{};
        if (p == "azure" || p == "az")
            return engine::AzureConfig{};
        if (p == "openstack")
            return engine::OpenStackConfig{};
        return engine::GcpConfig{};
    }
    try {
        return engine::decode_provider_config(*json);
    } catch (const ValidationError& e) {
        throw StoreError("the stored gardener_config.provider_specific_config: " +
                         std::string(e.what()));
    }
}

} // namespace kprov::stores
