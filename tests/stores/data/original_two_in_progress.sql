-- Loaded on top of original_provisioner.sql: a runtime with two operations in progress at once,
-- which the original allowed (its check before the insert was not atomic). kprov's migration 2
-- keeps the newer one in progress and fails the older one, saying why, before it creates the
-- unique index that enforces one in-progress operation per runtime.

INSERT INTO cluster (id, kubeconfig, tenant, creation_timestamp, deleted, sub_account_id,
                     active_kyma_config_id, is_kubeconfig_encrypted)
VALUES ('55555555-5555-4555-8555-555555555555', NULL, 'tenant-race', '2023-08-01 09:00:00',
        false, 'sub-account-race', NULL, false);
INSERT INTO gardener_config (id, cluster_id, name, project_name, kubernetes_version,
    volume_size_gb, machine_type, region, provider, seed, target_secret, disk_type, worker_cidr,
    auto_scaler_min, auto_scaler_max, max_surge, max_unavailable, provider_specific_config,
    enable_kubernetes_version_auto_update, enable_machine_image_version_auto_update,
    machine_image, machine_image_version, purpose, licence_type, exposure_class_name,
    shoot_networking_filter_disabled, control_plane_failure_tolerance, eu_access, pods_cidr,
    services_cidr)
VALUES ('aaaaaaaa-5555-4555-8555-555555555555', '55555555-5555-4555-8555-555555555555',
        'c-race01', 'kyma', '1.26.9', '50', 'n2-standard-4', 'europe-west4', 'gcp', 'gcp-eu2',
        'gcp-trial-secret', 'pd-standard', '10.250.0.0/22', 1, 3, 1, 0,
        '{"zones": ["europe-west4-a"]}', false, false, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, false, NULL, NULL);
INSERT INTO operation (id, type, state, message, start_timestamp, end_timestamp, cluster_id,
                       stage, last_transition, err_message, reason, component) VALUES
    ('0e000000-5555-4000-8000-000000000001', 'PROVISION', 'SUCCEEDED', 'Operation succeeded',
     '2023-08-01 09:00:01', '2023-08-01 09:30:00', '55555555-5555-4555-8555-555555555555',
     'Finished', '2023-08-01 09:29:00', '', '', ''),
    ('0e000000-5555-4000-8000-000000000002', 'UPGRADE_SHOOT', 'IN_PROGRESS',
     'Operation in progress. Stage WaitingForShootUpgrade', '2023-08-02 10:00:00', NULL,
     '55555555-5555-4555-8555-555555555555', 'WaitingForShootUpgrade', '2023-08-02 10:00:00',
     '', '', ''),
    ('0e000000-5555-4000-8000-000000000003', 'DEPROVISION_NO_INSTALL', 'IN_PROGRESS',
     'Deprovisioning started', '2023-08-02 10:00:05', NULL,
     '55555555-5555-4555-8555-555555555555', 'DeprovisionCluster', NULL, '', '', '');
