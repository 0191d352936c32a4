#pragma once
// An in-memory Kubernetes API server behind HttpTransport, enough for the Kyma installer's
// tests: objects by path, POST (409 AlreadyExists), GET, PUT (409 on a stale resourceVersion),
// DELETE, lists with a label selector k=v (across namespaces for a cluster-wide collection),
// and a hook that answers a request before the store does (failure injection, watches).

#include "fakes.hpp"

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

namespace kprov::gardener::testing {

inline constexpr const char* k_fake_cluster_kubeconfig = R"(apiVersion: v1
kind: Config
current-context: c
clusters: [{name: k, cluster: {server: "https://api.test"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)";

class FakeCluster : public net::HttpTransport {
public:
    using json = nlohmann::json;
    /// Answers a request instead of the store when it returns a response.
    using Hook = std::function<std::optional<net::HttpResponse>(const net::HttpRequest&,
                                                                const std::string& path)>;

    void put(const std::string& path, json object) {
        std::lock_guard lock(m_mutex);
        object["metadata"]["resourceVersion"] = std::to_string(++m_version);
        m_objects[path] = std::move(object);
    }
    std::optional<json> object(const std::string& path) {
        std::lock_guard lock(m_mutex);
        const auto it = m_objects.find(path);
        return it == m_objects.end() ? std::nullopt : std::optional<json>(it->second);
    }
    void set_hook(Hook hook) {
        std::lock_guard lock(m_mutex);
        m_hook = std::move(hook);
    }
    /// "METHOD /path" of every request, query left out.
    std::vector<std::string> calls() {
        std::lock_guard lock(m_mutex);
        return m_calls;
    }
    std::vector<net::HttpRequest> requests() {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }

    net::HttpResponse perform(const net::HttpRequest& request) override {
        std::string rest = request.url.substr(std::string("https://api.test").size());
        const auto q = rest.find('?');
        const std::string path = rest.substr(0, q);
        const std::string query = q == std::string::npos ? "" : rest.substr(q + 1);
        Hook hook;
        {
            std::lock_guard lock(m_mutex);
            m_calls.push_back(request.method + " " + path);
            m_requests.push_back(request);
            hook = m_hook;
        }
        if (hook)
            if (auto answer = hook(request, path))
                return *answer;
        std::lock_guard lock(m_mutex);
        if (request.method == "POST") {
            json object = json::parse(request.body);
            const std::string target = path + "/" + object["metadata"]["name"].get<std::string>();
            if (m_objects.count(target))
                return answer(409, status_body(409, "AlreadyExists", "exists"));
            object["metadata"]["resourceVersion"] = std::to_string(++m_version);
            m_objects[target] = object;
            return answer(201, object.dump());
        }
        const auto it = m_objects.find(path);
        if (request.method == "GET" && it == m_objects.end() && is_collection(path))
            return list(path, query);
        if (it == m_objects.end())
            return answer(404, status_body(404, "NotFound", "not found"));
        if (request.method == "GET")
            return answer(200, it->second.dump());
        if (request.method == "DELETE") {
            m_objects.erase(it);
            return answer(200, "{}");
        }
        if (request.method == "PUT") {
            json object = json::parse(request.body);
            const json rv = object["metadata"].value("resourceVersion", json());
            if (!rv.is_null() && rv != it->second["metadata"]["resourceVersion"])
                return answer(409, status_body(409, "Conflict", "the object has been modified"));
            object["metadata"]["resourceVersion"] = std::to_string(++m_version);
            it->second = object;
            return answer(200, object.dump());
        }
        return answer(405, status_body(405, "MethodNotAllowed", "no"));
    }

    static net::HttpResponse answer(int status, std::string body) {
        net::HttpResponse response;
        response.status = status;
        response.body = std::move(body);
        return response;
    }

private:
    static std::string decoded(const std::string& text) {
        std::string out;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '%' && i + 2 < text.size()) {
                out.push_back(static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16)));
                i += 2;
            } else {
                out.push_back(text[i] == '+' ? ' ' : text[i]);
            }
        }
        return out;
    }

    net::HttpResponse list(const std::string& collection, const std::string& query) {
        std::string selector;
        if (const auto at = query.find("labelSelector="); at != std::string::npos)
            selector = decoded(query.substr(at + 14, query.find('&', at) - at - 14));
        const auto slash = collection.rfind('/');
        const std::string base = collection.substr(0, slash);
        const std::string plural = collection.substr(slash + 1);
        json items = json::array();
        for (const auto& [path, object] : m_objects) {
            const auto parent = path.substr(0, path.rfind('/'));
            const bool direct = parent == collection;
            const bool any_namespace = collection.find("/namespaces/") == std::string::npos &&
                                       parent.starts_with(base + "/namespaces/") &&
                                       parent.ends_with("/" + plural);
            if (!direct && !any_namespace)
                continue;
            if (!selector.empty()) {
                const auto eq = selector.find('=');
                const json labels = object["metadata"].value("labels", json::object());
                if (labels.value(selector.substr(0, eq), "\x01") != selector.substr(eq + 1))
                    continue;
            }
            items.push_back(object);
        }
        return answer(200,
                      json({{"items", items}, {"metadata", {{"resourceVersion", "1"}}}}).dump());
    }

    static bool is_collection(const std::string& path) {
        static const std::set<std::string> plurals = {"namespaces",
                                                      "configmaps",
                                                      "secrets",
                                                      "installations",
                                                      "clusterservicebrokers",
                                                      "clusterserviceclasses",
                                                      "serviceinstances",
                                                      "customresourcedefinitions",
                                                      "deployments"};
        return plurals.count(path.substr(path.rfind('/') + 1)) > 0;
    }

    std::mutex m_mutex;
    std::map<std::string, json> m_objects;
    std::vector<std::string> m_calls;
    std::vector<net::HttpRequest> m_requests;
    Hook m_hook;
    int m_version = 100;
};

} // namespace kprov::gardener::testing
