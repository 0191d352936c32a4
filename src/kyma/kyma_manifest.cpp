// The installer YAML as objects to apply: its documents read by src/yaml/, the static kind table
// (kyma-installation.md §2.4 step 2, §7.1 "K8s apply").

#include "engine/error.hpp"
#include "engine/input/input_limits.hpp"
#include "engine/unusable_release.hpp"
#include "kyma/kyma_objects.hpp"
#include "yaml/yaml_reader.hpp"

#include <array>
#include <nlohmann/json.hpp>

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

namespace {

// A release's documents as Kubernetes' YAML reads them: a key given twice keeps its last value.
constexpr yaml::ReadOptions k_release_yaml{yaml::k_foreign_bounds, yaml::Scalars::Typed,
                                           yaml::DuplicateKeys::LastWins};

std::vector<json> read_yaml(std::string_view text) {
    try {
        return yaml::read_documents(text, k_release_yaml).documents;
    } catch (const yaml::ReadError& e) {
        if (!e.bound().empty()) // a bound of every foreign YAML (yaml/yaml_check.hpp)
            throw Error("breaks the YAML bound " + e.bound() + ": " + e.what());
        throw Error("is not valid YAML at line " + std::to_string(e.mark().line) + ": " +
                    e.message());
    }
}

} // namespace

json yaml_document_to_json(const std::string& document) {
    auto documents = read_yaml(document);
    if (documents.size() > 1)
        throw Error("more than one YAML document");
    return documents.empty() ? json(nullptr) : std::move(documents[0]);
}

InstallerManifest parse_installer_yaml(std::string_view yaml) {
    // The whole release within the bounds (its size, depth, nodes and what its aliases expand
    // to, across all its documents): a stored release is read again at every use.
    std::vector<json> documents;
    try {
        documents = read_yaml(yaml);
    } catch (const Error& e) {
        throw engine::UnusableRelease(std::string("the installer YAML ") + e.what());
    }
    InstallerManifest manifest;
    std::size_t number = 0; // of the documents that are not empty, as Hydroform counted them
    for (json& object : documents) {
        if (object.is_null())
            continue; // an empty document, or one of comments only
        ++number;
        try {
            check_object(object);
            if (manifest.installation.empty() && object["kind"] == "Installation")
                manifest.installation.push_back(std::move(object));
            else
                manifest.resources.push_back(std::move(object));
        } catch (const Error& e) {
            throw Error(std::string(e.what()) + " in document " + std::to_string(number));
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
