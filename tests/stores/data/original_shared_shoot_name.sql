-- Loaded on top of original_provisioner.sql: three runtimes of one shoot name, which the
-- original allowed after it dropped its unique constraint in 2021. Two are live (not
-- deprovisioned), the oldest is deleted. kprov's migration 6 gives the name to the newest live
-- one; the deleted one owns nothing.

INSERT INTO cluster (id, kubeconfig, tenant, creation_timestamp, deleted, sub_account_id,
                     active_kyma_config_id, is_kubeconfig_encrypted) VALUES
    ('66666666-0001-4666-8666-666666666666', NULL, 'tenant-s', '2022-01-01 09:00:00', true,
     '', NULL, false),
    ('66666666-0002-4666-8666-666666666666', NULL, 'tenant-s', '2023-01-01 09:00:00', false,
     '', NULL, false),
    ('66666666-0003-4666-8666-666666666666', NULL, 'tenant-s', '2024-01-01 09:00:00', NULL,
     '', NULL, false);
INSERT INTO gardener_config (id, cluster_id, name, project_name, kubernetes_version,
    volume_size_gb, machine_type, region, provider, seed, target_secret, disk_type, worker_cidr,
    auto_scaler_min, auto_scaler_max, max_surge, max_unavailable, provider_specific_config,
    enable_kubernetes_version_auto_update, enable_machine_image_version_auto_update,
    machine_image, machine_image_version, purpose, licence_type, exposure_class_name,
    shoot_networking_filter_disabled, control_plane_failure_tolerance, eu_access, pods_cidr,
    services_cidr)
SELECT ('aaaaaaaa-' || substr(id::text, 10))::uuid, id, 'c-shared', 'kyma', '1.26.9', '50',
       'n2-standard-4', 'europe-west4', 'gcp', 'gcp-eu2', 'gcp-trial-secret', 'pd-standard',
       '10.250.0.0/22', 1, 3, 1, 0, '{"zones": ["europe-west4-a"]}', false, false, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, false, NULL, NULL
FROM cluster WHERE tenant = 'tenant-s';
