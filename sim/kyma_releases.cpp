#include "kyma_releases.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace kprov::sim {

namespace {

const char* k_separator = "\n---\n";

std::string join(const std::vector<std::string>& docs) {
    std::string out;
    for (std::size_t i = 0; i < docs.size(); ++i)
        out += (i ? k_separator : "") + docs[i];
    return out + "\n";
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// The release's default component list of installer-cr-cluster.yaml.tpl (name, namespace).
std::vector<std::pair<std::string, std::string>> components(const std::string& version) {
    std::vector<std::pair<std::string, std::string>> list = {
        {"cluster-essentials", "kyma-system"},
        {"testing", "kyma-system"},
        {"istio", "istio-system"},
        {"xip-patch", "kyma-installer"},
        {"istio-kyma-patch", "istio-system"},
        {"dex", "kyma-system"},
        {"ory", "kyma-system"},
        {"api-gateway", "kyma-system"},
        {"rafter", "kyma-system"},
        {"service-catalog", "kyma-system"},
        {"service-catalog-addons", "kyma-system"},
        {"helm-broker", "kyma-system"},
        {"nats-streaming", "natss"},
        {"core", "kyma-system"},
        {"cluster-users", "kyma-system"},
        {"logging", "kyma-system"},
        {"permission-controller", "kyma-system"},
        {"apiserver-proxy", "kyma-system"},
        {"iam-kubeconfig-service", "kyma-system"},
        {"serverless", "kyma-system"},
        {"knative-eventing", "knative-eventing"},
        {"application-connector", "kyma-integration"},
    };
    if (version.rfind("1.13", 0) == 0)
        list.insert(list.begin() + 5, {"knative-serving", "knative-serving"});
    return list;
}

// Only the oldest release is served as Kyma 1.x published it, with API versions Kubernetes
// stopped serving (apiextensions.k8s.io/v1beta1 in 1.22, policy/v1beta1 in 1.25; see
// api_versions.cpp): installing it fails on every cluster the sim makes. The others use
// apiextensions.k8s.io/v1 and no PodSecurityPolicy, so that the installation-cr path can be
// exercised against today's clusters (tests/sim/README.md).
bool uses_removed_apis(const std::string& version) {
    return version == "1.13.0";
}

std::string crd(const std::string& plural, const std::string& group, const std::string& kind,
                const std::string& version, const std::string& singular, bool v1beta1) {
    std::string head = "apiVersion: apiextensions.k8s.io/" +
                       std::string(v1beta1 ? "v1beta1" : "v1") +
                       "\n"
                       "kind: CustomResourceDefinition\n"
                       "metadata:\n"
                       "  name: " +
                       plural + "." + group +
                       "\n"
                       "spec:\n"
                       "  group: " +
                       group + "\n";
    std::string names = "  scope: Namespaced\n"
                        "  names:\n"
                        "    kind: " +
                        kind +
                        "\n"
                        "    singular: " +
                        singular +
                        "\n"
                        "    plural: " +
                        plural +
                        "\n"
                        "    shortNames: ['" +
                        singular + "']";
    if (v1beta1)
        return head + "  version: " + version + "\n" + names;
    return head + names +
           "\n"
           "  versions:\n"
           "  - name: " +
           version +
           "\n"
           "    served: true\n"
           "    storage: true\n"
           "    schema:\n"
           "      openAPIV3Schema:\n"
           "        type: object\n"
           "        x-kubernetes-preserve-unknown-fields: true";
}

std::string installer_yaml(const std::string& version) {
    const bool old_apis = uses_removed_apis(version);
    std::vector<std::string> docs;
    docs.push_back("apiVersion: v1\n"
                   "kind: Namespace\n"
                   "metadata:\n"
                   "  name: kyma-installer\n"
                   "  labels:\n"
                   "    istio-injection: disabled\n"
                   "    kyma-project.io/installation: \"\"");
    docs.push_back("apiVersion: v1\n"
                   "kind: LimitRange\n"
                   "metadata:\n"
                   "  name: kyma-default\n"
                   "  namespace: kyma-installer\n"
                   "  labels:\n"
                   "    kyma-project.io/installation: \"\"\n"
                   "spec:\n"
                   "  limits:\n"
                   "  - max:\n"
                   "      memory: 1024Mi\n"
                   "    default:\n"
                   "      memory: 96Mi\n"
                   "    defaultRequest:\n"
                   "      memory: 32Mi\n"
                   "    type: Container");
    docs.push_back("apiVersion: scheduling.k8s.io/v1\n"
                   "kind: PriorityClass\n"
                   "metadata:\n"
                   "  name: kyma-system-priority\n"
                   "value: 1000000\n"
                   "globalDefault: false\n"
                   "description: \"Scheduling priority of Kyma components.\"");
    docs.push_back(crd("installations", "installer.kyma-project.io", "Installation", "v1alpha1",
                       "installation", old_apis));
    docs.push_back(
        crd("releases", "release.kyma-project.io", "Release", "v1alpha1", "release", old_apis));
    docs.push_back("apiVersion: v1\n"
                   "kind: ServiceAccount\n"
                   "metadata:\n"
                   "  name: kyma-installer\n"
                   "  namespace: kyma-installer\n"
                   "  labels:\n"
                   "    kyma-project.io/installation: \"\"");
    docs.push_back("apiVersion: apps/v1\n"
                   "kind: Deployment\n"
                   "metadata:\n"
                   "  name: kyma-installer\n"
                   "  namespace: kyma-installer\n"
                   "  labels:\n"
                   "    kyma-project.io/installation: \"\"\n"
                   "spec:\n"
                   "  selector:\n"
                   "    matchLabels:\n"
                   "      name: kyma-installer\n"
                   "  strategy:\n"
                   "    type: Recreate\n"
                   "  template:\n"
                   "    metadata:\n"
                   "      labels:\n"
                   "        name: kyma-installer\n"
                   "    spec:\n"
                   "      serviceAccountName: kyma-installer\n"
                   "      priorityClassName: kyma-system-priority\n"
                   "      containers:\n"
                   "      - name: kyma-installer-container\n"
                   "        image: eu.gcr.io/kyma-project/kyma-installer:" +
                   version +
                   "\n"
                   "        imagePullPolicy: IfNotPresent\n"
                   "        args:\n"
                   "        - -overrideLogFile=/app/overrides.txt\n"
                   "        - -backoffIntervals=10,20,40,60,80\n"
                   "        env:\n"
                   "        - name: INST_NAMESPACE\n"
                   "          value: default\n"
                   "        - name: INST_RESOURCE\n"
                   "          value: kyma-installation\n"
                   "        - name: OVERRIDES_NAMESPACE\n"
                   "          value: kyma-installer");
    if (old_apis)
        docs.push_back("apiVersion: policy/v1beta1\n"
                       "kind: PodSecurityPolicy\n"
                       "metadata:\n"
                       "  name: kyma-installer\n"
                       "spec:\n"
                       "  privileged: false\n"
                       "  allowPrivilegeEscalation: false\n"
                       "  runAsUser:\n"
                       "    rule: RunAsAny\n"
                       "  seLinux:\n"
                       "    rule: RunAsAny\n"
                       "  supplementalGroups:\n"
                       "    rule: RunAsAny\n"
                       "  fsGroup:\n"
                       "    rule: RunAsAny\n"
                       "  volumes:\n"
                       "  - '*'");
    docs.push_back("apiVersion: rbac.authorization.k8s.io/v1\n"
                   "kind: ClusterRole\n"
                   "metadata:\n"
                   "  name: kyma-installer-reader\n"
                   "  labels:\n"
                   "    kyma-project.io/installation: \"\"\n"
                   "rules:\n"
                   "- apiGroups: [\"*\"]\n"
                   "  resources: [\"*\"]\n"
                   "  verbs: [\"*\"]");
    docs.push_back("apiVersion: rbac.authorization.k8s.io/v1\n"
                   "kind: ClusterRoleBinding\n"
                   "metadata:\n"
                   "  name: kyma-installer\n"
                   "  labels:\n"
                   "    kyma-project.io/installation: \"\"\n"
                   "subjects:\n"
                   "- kind: ServiceAccount\n"
                   "  name: kyma-installer\n"
                   "  namespace: kyma-installer\n"
                   "roleRef:\n"
                   "  kind: ClusterRole\n"
                   "  name: kyma-installer-reader\n"
                   "  apiGroup: rbac.authorization.k8s.io");
    std::string cr = "apiVersion: installer.kyma-project.io/v1alpha1\n"
                     "kind: Installation\n"
                     "metadata:\n"
                     "  name: kyma-installation\n"
                     "  namespace: default\n"
                     "  labels:\n"
                     "    action: install\n"
                     "    kyma-project.io/installation: \"\"\n"
                     "spec:\n"
                     "  version: \"0.0.1\"\n"
                     "  url: \"\"\n"
                     "  components:";
    for (const auto& [name, ns] : components(version))
        cr += "\n  - name: \"" + name + "\"\n    namespace: \"" + ns + "\"";
    docs.push_back(cr);
    return join(docs);
}

std::string tiller_yaml() {
    const std::string labels = "  labels:\n"
                               "    app: helm\n"
                               "    name: tiller\n";
    return join(
        {"apiVersion: v1\n"
         "kind: ServiceAccount\n"
         "metadata:\n"
         "  name: tiller\n"
         "  namespace: kube-system\n" +
             labels.substr(0, labels.size() - 1),
         "apiVersion: rbac.authorization.k8s.io/v1\n"
         "kind: ClusterRoleBinding\n"
         "metadata:\n"
         "  name: tiller-cluster-admin\n"
         "roleRef:\n"
         "  apiGroup: rbac.authorization.k8s.io\n"
         "  kind: ClusterRole\n"
         "  name: cluster-admin\n"
         "subjects:\n"
         "- kind: ServiceAccount\n"
         "  name: tiller\n"
         "  namespace: kube-system",
         "apiVersion: apps/v1\n"
         "kind: Deployment\n"
         "metadata:\n"
         "  name: tiller-deploy\n"
         "  namespace: kube-system\n" +
             labels +
             "spec:\n"
             "  replicas: 1\n"
             "  selector:\n"
             "    matchLabels:\n"
             "      app: helm\n"
             "      name: tiller\n"
             "  template:\n"
             "    metadata:\n"
             "      labels:\n"
             "        app: helm\n"
             "        name: tiller\n"
             "    spec:\n"
             "      serviceAccountName: tiller\n"
             "      containers:\n"
             "      - name: tiller\n"
             "        image: gcr.io/kubernetes-helm/tiller:v2.16.1\n"
             "        ports:\n"
             "        - containerPort: 44134\n"
             "          name: tiller",
         "apiVersion: v1\n"
         "kind: Service\n"
         "metadata:\n"
         "  name: tiller-deploy\n"
         "  namespace: kube-system\n" +
             labels +
             "spec:\n"
             "  type: ClusterIP\n"
             "  ports:\n"
             "  - name: tiller\n"
             "    port: 44134\n"
             "    targetPort: tiller\n"
             "  selector:\n"
             "    app: helm\n"
             "    name: tiller",
         "apiVersion: batch/v1\n"
         "kind: Job\n"
         "metadata:\n"
         "  name: tiller-certs-job\n"
         "  namespace: kube-system\n"
         "spec:\n"
         "  backoffLimit: 1\n"
         "  template:\n"
         "    spec:\n"
         "      serviceAccountName: tiller\n"
         "      restartPolicy: OnFailure\n"
         "      containers:\n"
         "      - name: generate-certs\n"
         "        image: eu.gcr.io/kyma-project/test-infra/alpine-kubectl:v20200310-5f52f407\n"
         "        command: [\"sh\", \"-c\", \"echo generating tiller certificates\"]"});
}

bool needs_tiller(const std::string& version) {
    return version == "1.13.0";
}

} // namespace

const std::vector<std::string>& kyma_release_versions() {
    static const std::vector<std::string> versions = {"1.24.11", "1.24.8", "1.13.0"};
    return versions;
}

bool is_on_demand_kyma_version(const std::string& version) {
    std::string v = lower(version);
    auto tail_ok = [&](std::size_t from) {
        return v.size() > from &&
               std::all_of(v.begin() + static_cast<long>(from), v.end(), [](unsigned char c) {
                   return std::isalnum(c) || c == '-' || c == '.' || c == '_';
               });
    };
    return v == "main" || (v.rfind("pr-", 0) == 0 && tail_ok(3)) ||
           (v.rfind("main-", 0) == 0 && tail_ok(5));
}

std::optional<std::string> kyma_release_artifact(const std::string& version,
                                                 const std::string& file) {
    const auto& known = kyma_release_versions();
    bool released = std::find(known.begin(), known.end(), version) != known.end();
    if (!released && !is_on_demand_kyma_version(version))
        return std::nullopt;
    if (file == "kyma-installer-cluster.yaml")
        return installer_yaml(version);
    if (file == "tiller.yaml" && needs_tiller(version))
        return tiller_yaml();
    return std::nullopt;
}

} // namespace kprov::sim
