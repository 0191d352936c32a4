#pragma once
// The engine's KymaLifecycleManager port over the KCP's API server
// (kyma-lifecycle-manager.md §1-§2): the runtime's kubeconfig Secret and its Kyma resource
// (`kymas.operator.kyma-project.io/v1beta2`) in one namespace, `kcp-system` by default.

#include "engine/kyma_lifecycle.hpp"
#include "gardener/kube_client.hpp"

#include <string>
#include <vector>

namespace kprov::gardener {

/// Thread-safe: one KubeClient shared by every call. Failures throw KubeError (a RemoteError,
/// component "k8s client - kcp") with the request in the message; answers are bounded and
/// checked before use (a malformed Kyma is read as far as it is well-formed: a status that is
/// not an object reads as no status).
class KcpClient final : public engine::KymaLifecycleManager {
public:
    /// `kcp`: the KCP's kubeconfig (the user's own file: file references allowed).
    KcpClient(Kubeconfig kcp, std::string namespace_name, ClientOptions options = {});
    ~KcpClient() override;

    const std::string& namespace_name() const override { return m_namespace; }
    const std::string& server() const override;

    /// GET, then POST or PUT with the live resourceVersion (re-read and retried on 409); other
    /// Secrets with the same kyma-name label are deleted first.
    std::vector<std::string> apply_secret(const engine::KymaAccessSecret& secret) override;
    bool delete_secret(const std::string& name) override;
    std::vector<engine::KymaAccessSecretInfo> list_secrets() override;

    /// GET, then POST, or PUT of the live object with kprov's labels and annotations set (its
    /// spec kept); re-read and retried on 409.
    engine::KymaState apply_kyma(const engine::KymaResource& kyma) override;
    std::optional<engine::KymaState> read_kyma(const std::string& name) override;
    bool delete_kyma(const std::string& name) override;

    /// A watch of the Kyma from `resource_version` (await_object_change), on a client of its
    /// own whose timeoutSeconds is `max_wait`: the server ends the stream when the caller stops
    /// waiting, instead of keeping it (and, on many servers, a thread) open for ten minutes.
    bool await_change(const std::string& name, const std::string& resource_version,
                      std::chrono::milliseconds max_wait, std::stop_token stop) override;

private:
    std::string secrets_path() const;
    std::string kymas_path() const;

    Kubeconfig m_kubeconfig; ///< for the watches' own clients
    ClientOptions m_options;
    KubeClient m_kube;
    std::string m_namespace;
};

/// The Kyma object kprov creates for `kyma` in `namespace_name` (§6).
nlohmann::json kyma_object(const engine::KymaResource& kyma, const std::string& namespace_name);

/// What a Kyma object as the KCP answers it says (§1.5), with every remote text cleaned and
/// every list bounded. Throws nothing.
engine::KymaState kyma_state_of(const nlohmann::json& object);

} // namespace kprov::gardener
