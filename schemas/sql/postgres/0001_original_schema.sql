-- The original Runtime Provisioner's schema (original-provisioner.md §5), written so that it is a
-- no-op on a database the original's schema-migrator already set up: kprov can take one over.

DO $$ BEGIN
    CREATE TYPE operation_state AS ENUM ('IN_PROGRESS', 'SUCCEEDED', 'FAILED');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

DO $$ BEGIN
    CREATE TYPE operation_type AS ENUM ('PROVISION', 'UPGRADE', 'DEPROVISION', 'RECONNECT_RUNTIME',
        'UPGRADE_SHOOT', 'HIBERNATE', 'PROVISION_NO_INSTALL', 'DEPROVISION_NO_INSTALL');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

DO $$ BEGIN
    CREATE TYPE kyma_profile AS ENUM ('EVALUATION', 'PRODUCTION');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

DO $$ BEGIN
    CREATE TYPE runtime_upgrade_state AS ENUM ('IN_PROGRESS', 'SUCCEEDED', 'FAILED', 'ROLLED_BACK');
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

CREATE TABLE IF NOT EXISTS cluster (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    kubeconfig text,
    tenant varchar(256) NOT NULL,
    creation_timestamp timestamp without time zone NOT NULL,
    deleted boolean DEFAULT false,
    sub_account_id varchar(256),
    active_kyma_config_id uuid,
    is_kubeconfig_encrypted boolean NOT NULL DEFAULT false
);

CREATE TABLE IF NOT EXISTS gardener_config (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    cluster_id uuid NOT NULL UNIQUE REFERENCES cluster (id) ON DELETE CASCADE,
    name varchar(256) NOT NULL,
    project_name varchar(256) NOT NULL,
    kubernetes_version varchar(256) NOT NULL,
    volume_size_gb varchar(256),
    machine_type varchar(256) NOT NULL,
    machine_image varchar(256),
    machine_image_version varchar(256),
    region varchar(256) NOT NULL,
    provider varchar(256) NOT NULL,
    purpose varchar(256),
    licence_type varchar(256),
    seed varchar(256) NOT NULL,
    target_secret varchar(256) NOT NULL,
    disk_type varchar(256),
    worker_cidr varchar(256) NOT NULL,
    pods_cidr varchar(256),
    services_cidr varchar(256),
    auto_scaler_min integer NOT NULL,
    auto_scaler_max integer NOT NULL,
    max_surge integer NOT NULL,
    max_unavailable integer NOT NULL,
    enable_kubernetes_version_auto_update boolean NOT NULL,
    enable_machine_image_version_auto_update boolean NOT NULL,
    exposure_class_name varchar(256),
    provider_specific_config jsonb,
    shoot_networking_filter_disabled boolean,
    control_plane_failure_tolerance varchar(256),
    eu_access boolean NOT NULL DEFAULT false
);

CREATE TABLE IF NOT EXISTS kyma_release (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    version varchar(256) NOT NULL UNIQUE,
    tiller_yaml text NOT NULL,
    installer_yaml text NOT NULL
);

CREATE TABLE IF NOT EXISTS kyma_config (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    release_id uuid NOT NULL REFERENCES kyma_release (id) ON DELETE RESTRICT,
    profile kyma_profile,
    cluster_id uuid NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    global_configuration jsonb
);

DO $$ BEGIN
    ALTER TABLE cluster ADD CONSTRAINT cluster_active_kyma_config_id_fkey
        FOREIGN KEY (active_kyma_config_id) REFERENCES kyma_config (id)
        DEFERRABLE INITIALLY DEFERRED;
EXCEPTION WHEN duplicate_object THEN NULL; END $$;

CREATE TABLE IF NOT EXISTS kyma_component_config (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    component varchar(256) NOT NULL,
    namespace varchar(256) NOT NULL,
    source_url varchar(256),
    configuration jsonb,
    component_order integer,
    kyma_config_id uuid NOT NULL REFERENCES kyma_config (id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS operation (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    type operation_type NOT NULL,
    state operation_state NOT NULL,
    message text,
    start_timestamp timestamp without time zone NOT NULL,
    end_timestamp timestamp without time zone,
    cluster_id uuid NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    stage varchar(256) NOT NULL,
    last_transition timestamp without time zone,
    err_message text DEFAULT '',
    reason text DEFAULT '',
    component text DEFAULT ''
);

CREATE TABLE IF NOT EXISTS runtime_upgrade (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    operation_id uuid NOT NULL REFERENCES operation (id) ON DELETE CASCADE,
    state runtime_upgrade_state NOT NULL,
    pre_upgrade_kyma_config_id uuid NOT NULL REFERENCES kyma_config (id) ON DELETE CASCADE,
    post_upgrade_kyma_config_id uuid NOT NULL REFERENCES kyma_config (id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS cluster_administrator (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    cluster_id uuid NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    user_id text NOT NULL,
    is_user_id_encrypted boolean NOT NULL DEFAULT false
);

CREATE TABLE IF NOT EXISTS oidc_config (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    gardener_config_id uuid NOT NULL REFERENCES gardener_config (id) ON DELETE CASCADE,
    client_id text NOT NULL,
    groups_claim text NOT NULL,
    issuer_url text NOT NULL,
    username_claim text NOT NULL,
    username_prefix text NOT NULL
);

CREATE TABLE IF NOT EXISTS signing_algorithms (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    oidc_config_id uuid NOT NULL REFERENCES oidc_config (id) ON DELETE CASCADE,
    algorithm text NOT NULL
);

CREATE TABLE IF NOT EXISTS dns_config (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    domain varchar(256) NOT NULL,
    gardener_config_id uuid NOT NULL UNIQUE REFERENCES gardener_config (id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS dns_providers (
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    dns_config_id uuid NOT NULL REFERENCES dns_config (id) ON DELETE CASCADE,
    domains_include varchar(256) NOT NULL,
    is_primary boolean NOT NULL,
    secret_name varchar(256) NOT NULL,
    type varchar(256) NOT NULL
);
