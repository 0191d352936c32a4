// The installer YAML as objects to apply: document split, YAML to JSON, the static kind table
// (kyma-installation.md §2.4 step 2, §7.1 "K8s apply").

#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "kyma/kyma_objects.hpp"
#include "yaml/yaml_check.hpp"
#include "yaml/yaml_scalars.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace kprov::gardener {
namespace {

using nlohmann::json;

// The kinds of kyma-installer-cluster.yaml across the 1.x releases, each under every apiVersion
// a release used for it.
constexpr std::array k_kinds = {
    KindInfo{"v1", "Namespace", "namespaces", false},
    KindInfo{"v1", "LimitRange", "limitranges", true},
    KindInfo{"v1", "ServiceAccount", "serviceaccounts", true},
    KindInfo{"v1", "Service", "services", true},
    KindInfo{"v1", "ConfigMap", "configmaps", true},
    KindInfo{"v1", "Secret", "secrets", true},
    KindInfo{"scheduling.k8s.io/v1", "PriorityClass", "priorityclasses", false},
    KindInfo{"scheduling.k8s.io/v1beta1", "PriorityClass", "priorityclasses", false},
    KindInfo{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "customresourcedefinitions",
             false},
    KindInfo{"apiextensions.k8s.io/v1beta1", "CustomResourceDefinition",
             "customresourcedefinitions", false},
    KindInfo{"apps/v1", "Deployment", "deployments", true},
    KindInfo{"batch/v1", "Job", "jobs", true},
    KindInfo{"rbac.authorization.k8s.io/v1", "Role", "roles", true},
    KindInfo{"rbac.authorization.k8s.io/v1", "RoleBinding", "rolebindings", true},
    KindInfo{"rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", false},
    KindInfo{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "clusterrolebindings", false},
    KindInfo{"rbac.authorization.k8s.io/v1beta1", "Role", "roles", true},
    KindInfo{"rbac.authorization.k8s.io/v1beta1", "RoleBinding", "rolebindings", true},
    KindInfo{"rbac.authorization.k8s.io/v1beta1", "ClusterRole", "clusterroles", false},
    KindInfo{"rbac.authorization.k8s.io/v1beta1", "ClusterRoleBinding", "clusterrolebindings",
             false},
    KindInfo{"policy/v1beta1", "PodSecurityPolicy", "podsecuritypolicies", false},
    KindInfo{"installer.kyma-project.io/v1alpha1", "Installation", "installations", true},
    KindInfo{"release.kyma-project.io/v1alpha1", "Release", "releases", true},
};

// The bounds of every foreign YAML (yaml/yaml_check.hpp), checked on the text before it is built.
constexpr int k_max_depth = static_cast<int>(yaml::k_foreign_bounds.max_depth);
constexpr std::size_t k_max_nodes = yaml::k_foreign_bounds.max_nodes;
constexpr std::string_view k_separator = "\n---\n";

bool blank_document(std::string_view document) {
    std::size_t pos = 0;
    while (pos < document.size()) {
        const std::size_t end = std::min(document.find('\n', pos), document.size());
        const std::string_view line = document.substr(pos, end - pos);
        const auto first = line.find_first_not_of(" \t\r");
        if (first != std::string_view::npos && line[first] != '#')
            return false;
        pos = end + 1;
    }
    return true;
}

// A plain scalar typed by YAML 1.2's core schema; nullopt for a string.
std::optional<json> typed_plain_scalar(const std::string& s) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")
        return json(nullptr);
    if (s == "true" || s == "True" || s == "TRUE")
        return json(true);
    if (s == "false" || s == "False" || s == "FALSE")
        return json(false);
    if (yaml::is_decimal_integer(s)) {
        errno = 0;
        const long long value = std::strtoll(s.c_str(), nullptr, 10);
        if (errno != ERANGE)
            return json(value);
        return json(std::strtod(s.c_str(), nullptr));
    }
    if (yaml::is_decimal_number(s))
        return json(std::strtod(s.c_str(), nullptr));
    return std::nullopt;
}

class YamlToJson {
public:
    json convert(const YAML::Node& node, int depth) {
        if (depth > k_max_depth)
            throw Error("the YAML nests deeper than " + std::to_string(k_max_depth) + " levels");
        if (++m_nodes > k_max_nodes)
            throw Error("the YAML has more than " + std::to_string(k_max_nodes) + " nodes");
        switch (node.Type()) {
        case YAML::NodeType::Map: {
            json object = json::object();
            for (const auto& entry : node) {
                if (!entry.first.IsScalar())
                    throw Error("a mapping key is not a scalar");
                object[entry.first.Scalar()] = convert(entry.second, depth + 1);
            }
            return object;
        }
        case YAML::NodeType::Sequence: {
            json list = json::array();
            for (const auto& item : node)
                list.push_back(convert(item, depth + 1));
            return list;
        }
        case YAML::NodeType::Scalar:
            // yaml-cpp tags quoted scalars "!" and plain ones "?".
            if (node.Tag() != "!")
                if (auto typed = typed_plain_scalar(node.Scalar()))
                    return std::move(*typed);
            return json(node.Scalar());
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined:
            break;
        }
        return json(nullptr);
    }

private:
    std::size_t m_nodes = 0;
};

std::string text_member(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Object names go into URL paths unencoded: refuse what would change the path.
bool usable_name(const std::string& name) {
    if (name.empty() || name.size() > 253 || name == "." || name == "..")
        return false;
    for (const unsigned char c : name)
        if (c <= ' ' || c >= 0x7f || c == '/' || c == '?' || c == '#' || c == '%')
            return false;
    return true;
}

const KindInfo& known_kind(const json& object) {
    const std::string api_version = text_member(object, "apiVersion");
    const std::string kind = text_member(object, "kind");
    const KindInfo* info = find_kind(api_version, kind);
    if (!info)
        throw Error("unknown kind " + api_version + " " + kind);
    return *info;
}

// Checks one document's object and fills in its namespace; throws a message without the
// document number.
void check_object(json& object) {
    if (!object.is_object())
        throw Error("not a mapping");
    if (text_member(object, "apiVersion").empty())
        throw Error("no apiVersion");
    if (text_member(object, "kind").empty())
        throw Error("no kind");
    const KindInfo& info = known_kind(object);
    json& metadata = object["metadata"];
    if (!metadata.is_object())
        throw Error("no metadata");
    if (!usable_name(text_member(metadata, "name")))
        throw Error("metadata.name is missing or not a valid object name");
    if (!info.namespaced) {
        metadata.erase("namespace");
    } else if (text_member(metadata, "namespace").empty()) {
        metadata["namespace"] = "default";
    } else if (!usable_name(text_member(metadata, "namespace"))) {
        throw Error("metadata.namespace is not a valid namespace name");
    }
}

} // namespace

const KindInfo* find_kind(std::string_view api_version, std::string_view kind) {
    for (const auto& info : k_kinds)
        if (info.api_version == api_version && info.kind == kind)
            return &info;
    return nullptr;
}

std::vector<std::string> split_yaml_documents(std::string_view yaml) {
    std::vector<std::string> documents;
    std::size_t start = 0;
    while (start <= yaml.size()) {
        std::size_t end = yaml.find(k_separator, start);
        if (end == std::string_view::npos)
            end = yaml.size();
        const std::string_view document = yaml.substr(start, end - start);
        if (!blank_document(document))
            documents.emplace_back(document);
        start = end + k_separator.size();
    }
    return documents;
}

json yaml_document_to_json(const std::string& document) {
    if (const auto problem = yaml::syntax_problem(document))
        throw Error("not valid YAML at line " + std::to_string(problem->line) + ": " +
                    std::string(problem->message));
    YAML::Node node;
    try {
        node = YAML::Load(document);
    } catch (const YAML::Exception& e) {
        throw Error("not valid YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    return YamlToJson().convert(node, 0);
}

InstallerManifest parse_installer_yaml(std::string_view yaml) {
    // The whole release within the bounds first (its size, depth, nodes and what its aliases
    // expand to, across all its documents): a stored release is checked again at every use.
    if (const auto problem = yaml::syntax_problem(yaml, yaml::k_foreign_bounds))
        throw Error("the installer YAML at line " + std::to_string(problem->line) + ": " +
                    problem->message);
    InstallerManifest manifest;
    const auto documents = split_yaml_documents(yaml);
    for (std::size_t i = 0; i < documents.size(); ++i) {
        try {
            json object = yaml_document_to_json(documents[i]);
            if (object.is_null())
                continue; // a document of markers only ("---")
            check_object(object);
            if (manifest.installation.empty() && object["kind"] == "Installation")
                manifest.installation.push_back(std::move(object));
            else
                manifest.resources.push_back(std::move(object));
        } catch (const Error& e) {
            throw Error(std::string(e.what()) + " in document " + std::to_string(i + 1));
        }
    }
    return manifest;
}

std::string collection_path(const json& object) {
    const KindInfo& info = known_kind(object);
    const std::string api_version(info.api_version);
    std::string path =
        api_version.find('/') == std::string::npos ? "/api/" + api_version : "/apis/" + api_version;
    if (info.namespaced) {
        std::string ns = text_member(object.value("metadata", json::object()), "namespace");
        path += "/namespaces/" + (ns.empty() ? std::string("default") : ns);
    }
    return path + "/" + std::string(info.plural);
}

std::string object_path(const json& object) {
    return collection_path(object) + "/" +
           text_member(object.value("metadata", json::object()), "name");
}

} // namespace kprov::gardener
