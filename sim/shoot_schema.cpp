// The Shoot field table (core.gardener.cloud/v1beta1): the fields of the current API that a
// provisioner sets or reads, the legacy v1.74 fields the sim still accepts, and the
// descriptions `kubectl explain` prints. Objects whose every field is listed are closed
// (unknown properties are rejected as fieldValidation says); the others are open.

#include "admission.hpp"
#include "schema_builders.hpp"

namespace kprov::sim {

namespace fields {

Field object_meta() {
    Field f = obj(
        "metadata", "ObjectMeta",
        "Standard object metadata: name, namespace, labels, annotations and the fields "
        "the server maintains.",
        {str("name", "Name of the object, unique within its namespace."),
         str("generateName", "Prefix of a name the server generates."),
         str("namespace", "Namespace the object lives in."),
         str("uid", "Unique id the server assigns."),
         str("resourceVersion",
             "Opaque version of the object; a replace must carry the current one."),
         i64("generation", "Incremented on every change of the desired state."),
         time("creationTimestamp", "When the object was created."),
         time("deletionTimestamp", "When deletion was requested."),
         string_map("labels", "Key/value pairs for selecting objects."),
         string_map("annotations", "Key/value pairs for tools and controllers."),
         strings("finalizers", "Names of controllers that must act before deletion."),
         list("ownerReferences", "OwnerReference", "uid", "Objects this one depends on.", {}, true),
         list("managedFields", "ManagedFieldsEntry", "", "Which field manager owns which fields.",
              {}, true)});
    f.type = FieldType::ObjectMeta;
    return f;
}

} // namespace fields

namespace {

using namespace fields;

Field worker() {
    return list(
        "workers", "Worker", "name",
        "The worker pools of the cluster: machine type, image, autoscaling bounds, zones and "
        "volumes of each pool. Merged by name.",
        {required(str("name", "Name of the pool: a DNS label of at most 15 characters.")),
         required(
             obj("machine", "Machine", "The machines of the pool.",
                 {required(str("type", "Machine type offered by the cloud profile.")),
                  obj("image", "ShootMachineImage",
                      "Machine image; defaulted from the cloud profile when omitted.",
                      {str("name", "Name of the image."), str("version", "Version of the image."),
                       raw("providerConfig", "Provider-specific image configuration.")}),
                  str("architecture", "CPU architecture: amd64 or arm64.")})),
         required(i32("minimum", "Minimum number of machines (autoscaler lower bound).")),
         required(i32("maximum", "Maximum number of machines (autoscaler upper bound).")),
         int_or_str("maxSurge", "Machines created above the desired count during a rolling "
                                "update (number or percentage)."),
         int_or_str("maxUnavailable", "Machines that may be unavailable during a rolling update "
                                      "(number or percentage)."),
         strings("zones", "Availability zones the machines are spread over."),
         obj("volume", "Volume", "The root disk of each machine.",
             {str("name", "Name of the volume."), str("type", "Volume type of the cloud profile."),
              str("size", "Size, e.g. 50Gi."), flag("encrypted", "Whether it is encrypted.")}),
         list("dataVolumes", "DataVolume", "name", "Additional disks of each machine.",
              {required(str("name", "Name of the data volume.")), str("type", "Volume type."),
               required(str("size", "Size, e.g. 50Gi.")),
               flag("encrypted", "Whether it is encrypted.")}),
         str("kubeletDataVolumeName", "Data volume that holds the kubelet's data."),
         raw("providerConfig", "Provider-specific worker configuration (WorkerConfig)."),
         string_map("labels", "Labels put on the nodes."),
         string_map("annotations", "Annotations put on the nodes."),
         list("taints", "Taint", "", "Taints put on the nodes.", {}, true),
         open_obj("cri", "CRI", "Container runtime of the nodes."),
         open_obj("kubernetes", "WorkerKubernetes", "Kubernetes settings of the pool."),
         str("caBundle", "Certificates the nodes trust in addition."),
         open_obj("systemComponents", "WorkerSystemComponents",
                  "Whether the pool may host system components."),
         open_obj("machineControllerManager", "MachineControllerManagerSettings",
                  "Machine health and drain timeouts."),
         string_map("sysctls", "Kernel settings of the nodes."),
         i32("priority", "Priority of the pool for the cluster autoscaler."),
         str("updateStrategy", "How machines are updated: AutoRollingUpdate or in-place."),
         open_obj("clusterAutoscaler", "ClusterAutoscalerOptions",
                  "Cluster autoscaler settings of the pool."),
         open_obj("controlPlane", "WorkerControlPlane",
                  "Settings of a pool that hosts the control plane.")});
}

Field spec() {
    return obj(
        "spec", "ShootSpec", "The desired state of the cluster.",
        {list("accessRestrictions", "AccessRestrictionWithOptions", "name",
              "Access restrictions of the cluster (e.g. EU access only).",
              {required(str("name", "Name of the restriction.")),
               string_map("options", "Options of the restriction.")}),
         open_obj("addons", "Addons", "Legacy cluster add-ons (dashboard, nginx ingress)."),
         obj("cloudProfile", "CloudProfileReference",
             "The cloud profile the cluster is built from.",
             {str("kind", "CloudProfile (default) or NamespacedCloudProfile."),
              required(str("name", "Name of the cloud profile."))}),
         str("cloudProfileName", "Legacy name of the cloud profile; use cloudProfile."),
         obj("controlPlane", "ControlPlane", "Settings of the control plane.",
             {obj("highAvailability", "HighAvailability", "High availability of the control plane.",
                  {required(obj("failureTolerance", "FailureTolerance",
                                "Failures the control plane tolerates.",
                                {required(str("type", "node or zone."))}))})}),
         str("credentialsBindingName", "CredentialsBinding with the cloud provider credentials."),
         open_obj(
             "dns", "DNS", "DNS settings of the cluster.",
             {str("domain", "Domain of the cluster; defaulted from the project."),
              list("providers", "DNSProvider", "", "DNS providers of the cluster.", {}, true)}),
         str("exposureClassName", "ExposureClass the API server is exposed with."),
         list("extensions", "Extension", "type", "Extensions enabled for the cluster.",
              {required(str("type", "Type of the extension, e.g. shoot-dns-service.")),
               raw("providerConfig", "Configuration of the extension."),
               flag("disabled", "Disables an extension enabled by default.")}),
         obj("hibernation", "Hibernation", "Hibernation of the cluster.",
             {flag("enabled", "Whether the cluster is (to be) hibernated."),
              list("schedules", "HibernationSchedule", "",
                   "Cron schedules that hibernate and wake up the cluster.",
                   {str("start", "Cron expression that starts hibernation."),
                    str("end", "Cron expression that ends hibernation."),
                    str("location", "Time zone of the schedules.")})}),
         required(open_obj(
             "kubernetes", "Kubernetes", "Kubernetes version and component settings.",
             {str("version", "Kubernetes version, e.g. 1.33 or 1.33.4."),
              open_obj(
                  "kubeAPIServer", "KubeAPIServerConfig", "Settings of the API server.",
                  {obj("structuredAuthentication", "StructuredAuthentication",
                       "Structured authentication configuration.",
                       {str("configMapName", "ConfigMap with an AuthenticationConfiguration.")}),
                   open_obj("oidcConfig", "OIDCConfig",
                            "Legacy OIDC settings (removed in Gardener v1.142)."),
                   open_obj("auditConfig", "AuditConfig", "Audit logging settings.")}),
              flag("enableStaticTokenKubeconfig",
                   "Legacy: static token kubeconfig (removed in Gardener v1.122)."),
              flag("allowPrivilegedContainers",
                   "Legacy: privileged containers (removed in Gardener v1.91).")})),
         obj("maintenance", "Maintenance", "When and what the cluster is maintained.",
             {obj("autoUpdate", "MaintenanceAutoUpdate", "Automatic updates.",
                  {flag("kubernetesVersion", "Update the Kubernetes patch version."),
                   flag("machineImageVersion", "Update the machine image version.")}),
              obj("timeWindow", "MaintenanceTimeWindow", "The daily maintenance window.",
                  {str("begin", "Start, HHMMSS+ZZZZ."), str("end", "End, HHMMSS+ZZZZ.")}),
              flag("confineSpecUpdateRollout", "Roll out spec changes in the window only.")}),
         open_obj("monitoring", "Monitoring", "Monitoring settings."),
         obj("networking", "Networking", "Networks of the cluster.",
             {str("type", "Network plugin: calico or cilium."),
              raw("providerConfig", "Configuration of the network plugin."),
              str("pods", "CIDR of the pod network."), str("nodes", "CIDR of the node network."),
              str("services", "CIDR of the service network."),
              strings("ipFamilies", "IP families: IPv4, IPv6.")}),
         required(obj(
             "provider", "Provider", "The cloud provider and the worker pools.",
             {required(str("type", "Provider type: aws, azure, gcp or openstack.")),
              raw("controlPlaneConfig", "Provider-specific control plane configuration."),
              raw("infrastructureConfig", "Provider-specific infrastructure configuration."),
              worker(),
              open_obj("workersSettings", "WorkersSettings", "Settings for all worker pools.")})),
         str("purpose", "evaluation, testing, development, production or infrastructure."),
         required(str("region", "Region of the cloud provider.")),
         list("resources", "NamedResourceReference", "name",
              "Resources in the project namespace that extensions may read.",
              {required(str("name", "Name the extensions refer to.")),
               required(obj("resourceRef", "CrossVersionObjectReference", "The referenced object.",
                            {required(str("kind", "Kind of the object.")),
                             required(str("name", "Name of the object.")),
                             str("apiVersion", "API version of the object.")}))}),
         str("schedulerName", "Scheduler that picks the seed."),
         str("secretBindingName", "Legacy SecretBinding with the cloud provider credentials."),
         str("seedName", "Seed that hosts the control plane; set by the scheduler."),
         open_obj("seedSelector", "SeedSelector", "Label selector for eligible seeds."),
         open_obj("systemComponents", "SystemComponents", "Settings of system components."),
         list("tolerations", "Toleration", "key", "Seed taints the cluster tolerates.",
              {required(str("key", "Key of the taint.")), str("value", "Value of the taint.")})});
}

Field status() {
    Field condition =
        list("conditions", "Condition", "type", "Health conditions of the cluster.",
             {required(str("type", "Type of the condition.")),
              str("status", "True, False, Unknown or Progressing."),
              time("lastTransitionTime", "When the status last changed."),
              time("lastUpdateTime", "When the condition was last updated."),
              str("reason", "Machine-readable reason."), str("message", "Human-readable message."),
              strings("codes", "Error codes.")});
    Field constraints = condition;
    constraints.name = "constraints";
    constraints.description = "Constraints of the cluster, e.g. HibernationPossible.";
    return open_obj(
        "status", "ShootStatus", "The observed state of the cluster; written by Gardener.",
        {condition, constraints,
         open_obj("lastOperation", "LastOperation", "The last (or running) operation.",
                  {str("type", "Create, Reconcile, Delete, Migrate or Restore."),
                   str("state", "Processing, Succeeded, Error, Failed, Pending or Aborted."),
                   i32("progress", "Progress in percent."), str("description", "What is going on."),
                   time("lastUpdateTime", "When it was last updated.")}),
         list("lastErrors", "LastError", "", "Errors of the last operation.", {}, true),
         flag("hibernated", "Whether the cluster is hibernated."),
         str("technicalID", "Name of the control plane namespace on the seed."),
         str("uid", "Unique id of the cluster."),
         str("seedName", "Seed hosting the control plane."),
         i64("observedGeneration", "Generation Gardener last started to work on."),
         list("advertisedAddresses", "ShootAdvertisedAddress", "name",
              "Addresses of the API server.",
              {required(str("name", "external, internal, ...")),
               required(str("url", "URL of the API server."))}),
         open_obj("gardener", "Gardener", "The Gardener that last acted on the cluster.")});
}

} // namespace

const KindSchema& shoot_schema() {
    static const KindSchema schema{
        shoot_info(),
        obj("", "Shoot",
            "A Kubernetes cluster managed by Gardener: its provider, region, Kubernetes version "
            "and worker pools.",
            {str("apiVersion", "core.gardener.cloud/v1beta1"), str("kind", "Shoot"), object_meta(),
             spec(), status()})};
    return schema;
}

} // namespace kprov::sim
