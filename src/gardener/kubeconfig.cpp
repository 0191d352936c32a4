#include "gardener/kubeconfig.hpp"

#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "net/base64.hpp"
#include "yaml/yaml_reader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kprov::gardener {
namespace {

using KubeValue = nlohmann::json;

// `node`'s member `key`, or null when `node` is not a mapping or has no such member.
const KubeValue* field_of(const KubeValue& node, const char* key) {
    if (!node.is_object())
        return nullptr;
    const auto found = node.find(key);
    return found == node.end() ? nullptr : &*found;
}

// Reads one kubeconfig; every error names the source and the field, never a value.
class KubeconfigReader {
public:
    KubeconfigReader(std::string source, std::filesystem::path base_dir,
                     KubeconfigOrigin origin = KubeconfigOrigin::Local)
        : m_source(std::move(source))
        , m_base_dir(std::move(base_dir))
        , m_origin(origin) {}

    // For a remote kubeconfig, fails when `node` sets `key` to anything but `harmless` (""
    // when any value is refused): a setting that changes where or how kprov connects, so that
    // a kubeconfig from Gardener cannot send kprov's requests and credentials through a third
    // host or turn off the server's certificate check.
    void refuse_connection_setting_if_remote(const KubeValue& node, const char* key,
                                             const std::string& field,
                                             std::string_view harmless = "") const {
        const KubeValue* value = field_of(node, key);
        if (m_origin != KubeconfigOrigin::Remote || !value || value->is_null())
            return;
        if (!harmless.empty() && value->is_string() && value->get<std::string>() == harmless)
            return;
        fail(field + "." + key,
             "a kubeconfig from Gardener may not change where or how kprov connects (proxy, "
             "certificate check, TLS server name); refused");
    }

    // For a remote kubeconfig, fails when `node` has `key` at all (whatever its value): a file
    // reference or a plugin that would run or read something local.
    void refuse_if_remote(const KubeValue& node, const char* key, const std::string& field) const {
        if (m_origin == KubeconfigOrigin::Remote && field_of(node, key))
            fail(field + "." + key, "a kubeconfig from Gardener must carry its credentials "
                                    "inline; file references and plugins are refused");
    }

    // A value that goes into an HTTP header: no CR, LF or NUL (header injection).
    void check_header_value(const std::string& value, const std::string& field) const {
        if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos)
            fail(field, "contains a line break or NUL character, which cannot go into an HTTP "
                        "header; refused");
    }

    [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
        throw ConfigError("kubeconfig " + m_source + ": " +
                          (field.empty() ? problem : field + ": " + problem));
    }

    // The string at `node[key]`; "" when absent or null.
    std::string text(const KubeValue& node, const char* key, const std::string& field) const {
        const KubeValue* value = field_of(node, key);
        if (!value || value->is_null())
            return {};
        if (!value->is_string()) // read as written: every scalar is text
            fail(field + "." + key, "must be a string");
        return value->get<std::string>();
    }

    bool flag(const KubeValue& node, const char* key, const std::string& field) const {
        const std::string value = text(node, key, field);
        if (value.empty() || value == "false")
            return false;
        if (value == "true")
            return true;
        fail(field + "." + key, "must be true or false");
    }

    // The entry of list `key` (clusters, users, contexts) named `name`, and its inner map.
    const KubeValue& entry(const KubeValue& root, const char* list, const char* inner,
                           const std::string& name, const std::string& referrer) const {
        const KubeValue* items = field_of(root, list);
        if (items && !items->is_null() && !items->is_array())
            fail(list, "must be a list");
        if (items && items->is_array()) {
            for (const KubeValue& item : *items) {
                const KubeValue* item_name = field_of(item, "name");
                if (item_name && item_name->is_string() && *item_name == name) {
                    const KubeValue* body = field_of(item, inner);
                    if (!body || !body->is_object())
                        fail(label(list, name) + "." + inner, "missing");
                    return *body;
                }
            }
        }
        fail(referrer, "names " + std::string(list) + " entry \"" + name + "\", which is missing");
    }

    static std::string label(const char* list, const std::string& name) {
        return std::string(list) + "[\"" + name + "\"]";
    }

    // `*-data` (base64) or the file named by `file_key`, whichever is set; "" when neither.
    std::string data_or_file(const KubeValue& node, const char* data_key, const char* file_key,
                             const std::string& field) const {
        refuse_if_remote(node, file_key, field);
        const std::string data = text(node, data_key, field);
        const std::string file = text(node, file_key, field);
        if (!data.empty() && !file.empty())
            fail(field, std::string("set either ") + data_key + " or " + file_key + ", not both");
        if (!data.empty()) {
            auto decoded = net::base64_decode(data);
            if (!decoded || decoded->empty())
                fail(field + "." + data_key, "not valid base64");
            return *decoded;
        }
        if (!file.empty())
            return read_file(resolve(file), field + "." + file_key);
        return {};
    }

    std::filesystem::path resolve(const std::string& file) const {
        std::filesystem::path path(file);
        if (path.is_relative() && !m_base_dir.empty())
            path = m_base_dir / path;
        return path.lexically_normal();
    }

    std::string read_file(const std::filesystem::path& path, const std::string& field) const {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            fail(field, "cannot read " + path.string() + ": " + std::strerror(errno));
        std::ostringstream content;
        content << in.rdbuf();
        if (content.str().empty())
            fail(field, path.string() + " is empty");
        return content.str();
    }

private:
    std::string m_source;
    std::filesystem::path m_base_dir;
    KubeconfigOrigin m_origin;
};

std::string trim(std::string s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

void read_cluster(const KubeconfigReader& r, const KubeValue& cluster, const std::string& field,
                  Kubeconfig& config) {
    r.refuse_connection_setting_if_remote(cluster, "proxy-url", field);
    r.refuse_connection_setting_if_remote(cluster, "insecure-skip-tls-verify", field, "false");
    r.refuse_connection_setting_if_remote(cluster, "tls-server-name", field);
    config.server = r.text(cluster, "server", field);
    if (config.server.empty())
        r.fail(field + ".server", "missing");
    if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0)
        r.fail(field + ".server", "must be an http:// or https:// URL");
    while (config.server.size() > 1 && config.server.back() == '/')
        config.server.pop_back();
    config.ca_pem =
        r.data_or_file(cluster, "certificate-authority-data", "certificate-authority", field);
    config.insecure_skip_tls_verify = r.flag(cluster, "insecure-skip-tls-verify", field);
    if (config.insecure_skip_tls_verify && !config.ca_pem.empty())
        r.fail(field, "certificate-authority and insecure-skip-tls-verify exclude each other");
    config.tls_server_name = r.text(cluster, "tls-server-name", field);
    config.proxy_url = r.text(cluster, "proxy-url", field);
}

void read_user(const KubeconfigReader& r, const KubeValue& user, const std::string& field,
               Kubeconfig& config) {
    // Before anything is read: a remote kubeconfig names no local file and runs no plugin.
    for (const char* refused :
         {"tokenFile", "client-certificate", "client-key", "exec", "auth-provider"})
        r.refuse_if_remote(user, refused, field);
    config.token = r.text(user, "token", field);
    r.check_header_value(config.token, field + ".token");
    const std::string token_file = r.text(user, "tokenFile", field);
    if (!token_file.empty()) {
        if (!config.token.empty())
            r.fail(field, "set either token or tokenFile, not both");
        config.token_file = std::filesystem::absolute(r.resolve(token_file)).string();
        config.token = trim(r.read_file(config.token_file, field + ".tokenFile"));
        if (config.token.empty())
            r.fail(field + ".tokenFile", config.token_file + " holds no token");
        r.check_header_value(config.token, field + ".tokenFile");
    }
    config.client_certificate_pem =
        r.data_or_file(user, "client-certificate-data", "client-certificate", field);
    config.client_key_pem = r.data_or_file(user, "client-key-data", "client-key", field);
    if (config.client_certificate_pem.empty() != config.client_key_pem.empty())
        r.fail(field, config.client_key_pem.empty() ? "client certificate without client key"
                                                    : "client key without client certificate");
    const bool has_credentials = !config.token.empty() || !config.client_certificate_pem.empty();
    if (!has_credentials) {
        // Say what is there instead of failing later with a bare 401.
        for (const char* unsupported : {"exec", "auth-provider", "username"})
            if (field_of(user, unsupported))
                r.fail(std::string(field) + "." + unsupported,
                       "not supported by kprov; use token, tokenFile or a client certificate");
    }
}

} // namespace

std::string read_token_file(const std::string& path) {
    KubeconfigReader reader(path, {});
    std::string token = trim(reader.read_file(path, "tokenFile"));
    if (token.empty())
        reader.fail("tokenFile", "holds no token");
    reader.check_header_value(token, "tokenFile");
    return token;
}

Kubeconfig parse_kubeconfig(std::string_view text, const std::string& source,
                            const std::filesystem::path& base_dir, const std::string& context,
                            KubeconfigOrigin origin) {
    const KubeconfigReader r(source, base_dir, origin);
    yaml::ReadOptions options;
    options.scalars = yaml::Scalars::AsWritten;
    yaml::Documents read;
    try {
        read = yaml::read_documents(text, options);
    } catch (const yaml::ReadError& e) {
        // The message names the syntax problem or the bound, never the content around it.
        r.fail("", "not valid YAML at line " + std::to_string(e.mark().line) + ": " + e.message());
    }
    // A key given twice would leave kprov and kubectl reading different servers or users.
    if (!read.problems.empty())
        r.fail(read.problems[0].path, read.problems[0].message + " (line " +
                                          std::to_string(read.problems[0].mark.line) + ")");
    if (read.documents.size() > 1)
        r.fail("", "more than one YAML document (line " + std::to_string(read.marks[1].line) + ")");
    const KubeValue root = read.documents.empty() ? KubeValue() : std::move(read.documents[0]);
    if (!root.is_object())
        r.fail("", "not a kubeconfig (expected a YAML map with clusters, users and contexts)");

    Kubeconfig config;
    config.source = source;
    config.context = context.empty() ? r.text(root, "current-context", "") : context;
    if (config.context.empty()) {
        const KubeValue* contexts = field_of(root, "contexts");
        if (contexts && contexts->is_array() && contexts->size() == 1)
            if (const KubeValue* name = field_of((*contexts)[0], "name"); name && name->is_string())
                config.context = name->get<std::string>();
        if (config.context.empty())
            r.fail("current-context", "missing, and no context was chosen");
    }
    const std::string context_field = KubeconfigReader::label("contexts", config.context);
    const KubeValue& ctx = r.entry(root, "contexts", "context", config.context,
                                   context.empty() ? "current-context" : "context");
    const std::string cluster_name = r.text(ctx, "cluster", context_field + ".context");
    if (cluster_name.empty())
        r.fail(context_field + ".context.cluster", "missing");
    const std::string user_name = r.text(ctx, "user", context_field + ".context");
    config.default_namespace = r.text(ctx, "namespace", context_field + ".context");

    read_cluster(r, r.entry(root, "clusters", "cluster", cluster_name, context_field + ".cluster"),
                 KubeconfigReader::label("clusters", cluster_name) + ".cluster", config);
    if (!user_name.empty())
        read_user(r, r.entry(root, "users", "user", user_name, context_field + ".user"),
                  KubeconfigReader::label("users", user_name) + ".user", config);
    return config;
}

Kubeconfig parse_remote_kubeconfig(std::string_view text, const std::string& source,
                                   const std::string& context) {
    return parse_kubeconfig(text, source, {}, context, KubeconfigOrigin::Remote);
}

Kubeconfig load_kubeconfig(const std::filesystem::path& path, const std::string& context) {
    const KubeconfigReader r(path.string(), {});
    const std::string text = r.read_file(path, "");
    return parse_kubeconfig(text, path.string(), std::filesystem::absolute(path).parent_path(),
                            context);
}

} // namespace kprov::gardener
