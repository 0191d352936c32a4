-- The original Runtime Provisioner's logical schema (original-provisioner.md §5) in SQLite terms:
-- uuid, timestamp and jsonb are TEXT (timestamps as "YYYY-MM-DD HH:MM:SS.ffffff" UTC), booleans
-- are 0/1, the enums are CHECK constraints.

CREATE TABLE cluster (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    kubeconfig TEXT,
    tenant TEXT NOT NULL,
    creation_timestamp TEXT NOT NULL,
    deleted INTEGER DEFAULT 0,
    sub_account_id TEXT,
    active_kyma_config_id TEXT,
    is_kubeconfig_encrypted INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE gardener_config (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    cluster_id TEXT NOT NULL UNIQUE REFERENCES cluster (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    project_name TEXT NOT NULL,
    kubernetes_version TEXT NOT NULL,
    volume_size_gb TEXT,
    machine_type TEXT NOT NULL,
    machine_image TEXT,
    machine_image_version TEXT,
    region TEXT NOT NULL,
    provider TEXT NOT NULL,
    purpose TEXT,
    licence_type TEXT,
    seed TEXT NOT NULL,
    target_secret TEXT NOT NULL,
    disk_type TEXT,
    worker_cidr TEXT NOT NULL,
    pods_cidr TEXT,
    services_cidr TEXT,
    auto_scaler_min INTEGER NOT NULL,
    auto_scaler_max INTEGER NOT NULL,
    max_surge INTEGER NOT NULL,
    max_unavailable INTEGER NOT NULL,
    enable_kubernetes_version_auto_update INTEGER NOT NULL,
    enable_machine_image_version_auto_update INTEGER NOT NULL,
    exposure_class_name TEXT,
    provider_specific_config TEXT,
    shoot_networking_filter_disabled INTEGER,
    control_plane_failure_tolerance TEXT,
    eu_access INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE operation (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    type TEXT NOT NULL CHECK (type IN ('PROVISION', 'UPGRADE', 'DEPROVISION', 'RECONNECT_RUNTIME',
        'UPGRADE_SHOOT', 'HIBERNATE', 'PROVISION_NO_INSTALL', 'DEPROVISION_NO_INSTALL')),
    state TEXT NOT NULL CHECK (state IN ('IN_PROGRESS', 'SUCCEEDED', 'FAILED')),
    message TEXT,
    start_timestamp TEXT NOT NULL,
    end_timestamp TEXT,
    cluster_id TEXT NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    stage TEXT NOT NULL,
    last_transition TEXT,
    err_message TEXT DEFAULT '',
    reason TEXT DEFAULT '',
    component TEXT DEFAULT ''
);

CREATE TABLE cluster_administrator (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    cluster_id TEXT NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    is_user_id_encrypted INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE oidc_config (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    gardener_config_id TEXT NOT NULL REFERENCES gardener_config (id) ON DELETE CASCADE,
    client_id TEXT NOT NULL,
    groups_claim TEXT NOT NULL,
    issuer_url TEXT NOT NULL,
    username_claim TEXT NOT NULL,
    username_prefix TEXT NOT NULL
);

CREATE TABLE signing_algorithms (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    oidc_config_id TEXT NOT NULL REFERENCES oidc_config (id) ON DELETE CASCADE,
    algorithm TEXT NOT NULL
);

CREATE TABLE dns_config (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    domain TEXT NOT NULL,
    gardener_config_id TEXT NOT NULL UNIQUE REFERENCES gardener_config (id) ON DELETE CASCADE
);

CREATE TABLE dns_providers (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    dns_config_id TEXT NOT NULL REFERENCES dns_config (id) ON DELETE CASCADE,
    domains_include TEXT NOT NULL,
    is_primary INTEGER NOT NULL,
    secret_name TEXT NOT NULL,
    type TEXT NOT NULL
);
