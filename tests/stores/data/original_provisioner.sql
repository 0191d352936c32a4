-- A database as the ORIGINAL Runtime Provisioner leaves it: the tables its schema-migrator
-- creates (golang-migrate, original-provisioner.md §5) and rows its service wrote. The takeover
-- test (postgres_takeover_test.cpp) loads this into an empty database, lets kprov migrate it and
-- reads every row back through the Store API.
--
-- Written the way the original's migrations built it up: the first tables, then columns added
-- by later migrations (so the column order differs from kprov's 0001), defaults dropped where
-- the original dropped them, and err_message/reason/component NOT NULL as in its test schema.
--
-- Two values are encrypted in the original's format (AES-CFB, double base64, §5.5) with the key
-- "kprov-takeover-test-key-32-bytes", computed independently of kprov with the openssl CLI:
--   KEYHEX=$(printf %s 'kprov-takeover-test-key-32-bytes' | xxd -p -c 64)
--   inner=$(printf %s "$PLAINTEXT" | base64 -w0)
--   ct=$(printf %s "$inner" | openssl enc -aes-256-cfb -K $KEYHEX -iv $IVHEX -nosalt | xxd -p -c 10000)
--   printf %s "$IVHEX$ct" | xxd -r -p | base64 -w0
-- administrator "legacy.admin@example.com" with IV 00112233445566778899aabbccddeeff, and the
-- kubeconfig in the test (ending in a newline) with IV 0f1e2d3c4b5a69788796a5b4c3d2e1f0.

-- golang-migrate's bookkeeping (kprov leaves it alone and keeps its own schema_version).
CREATE TABLE schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL);
INSERT INTO schema_migrations (version, dirty) VALUES (202301230741, false);

-- ---------------------------------------------------------------------------------------------
-- Schema

CREATE TYPE operation_state AS ENUM ('IN_PROGRESS', 'SUCCEEDED', 'FAILED');

-- (The original added the last four values by later migrations, each committed on its own; the
-- test loads this file in one transaction, where a value added by ALTER TYPE cannot be used.)
CREATE TYPE operation_type AS ENUM ('PROVISION', 'UPGRADE', 'DEPROVISION', 'RECONNECT_RUNTIME',
    'UPGRADE_SHOOT', 'HIBERNATE', 'PROVISION_NO_INSTALL', 'DEPROVISION_NO_INSTALL');

CREATE TYPE kyma_profile AS ENUM ('EVALUATION', 'PRODUCTION');
CREATE TYPE runtime_upgrade_state AS ENUM ('IN_PROGRESS', 'SUCCEEDED', 'FAILED', 'ROLLED_BACK');

CREATE TABLE cluster
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    kubeconfig text,
    tenant varchar(256) NOT NULL,
    creation_timestamp timestamp without time zone NOT NULL,
    deleted boolean default false,
    sub_account_id varchar(256)
);

CREATE TABLE gardener_config
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    cluster_id uuid NOT NULL,
    name varchar(256) NOT NULL,
    project_name varchar(256) NOT NULL,
    kubernetes_version varchar(256) NOT NULL,
    volume_size_gb varchar(256),
    machine_type varchar(256) NOT NULL,
    region varchar(256) NOT NULL,
    provider varchar(256) NOT NULL,
    seed varchar(256) NOT NULL,
    target_secret varchar(256) NOT NULL,
    disk_type varchar(256),
    worker_cidr varchar(256) NOT NULL,
    auto_scaler_min integer NOT NULL,
    auto_scaler_max integer NOT NULL,
    max_surge integer NOT NULL,
    max_unavailable integer NOT NULL,
    provider_specific_config jsonb,
    UNIQUE (cluster_id),
    foreign key (cluster_id) REFERENCES cluster (id) ON DELETE CASCADE
);

CREATE TABLE operation
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    type operation_type NOT NULL,
    state operation_state NOT NULL,
    message text,
    start_timestamp timestamp without time zone NOT NULL,
    end_timestamp timestamp without time zone,
    cluster_id uuid NOT NULL,
    foreign key (cluster_id) REFERENCES cluster (id) ON DELETE CASCADE
);

CREATE TABLE kyma_release
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    version varchar(256) NOT NULL,
    tiller_yaml text NOT NULL,
    installer_yaml text NOT NULL,
    unique (version)
);

CREATE TABLE kyma_config
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    release_id uuid NOT NULL,
    cluster_id uuid NOT NULL,
    global_configuration jsonb,
    foreign key (cluster_id) REFERENCES cluster (id) ON DELETE CASCADE,
    foreign key (release_id) REFERENCES kyma_release (id) ON DELETE RESTRICT
);

CREATE TABLE kyma_component_config
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    component varchar(256) NOT NULL,
    namespace varchar(256) NOT NULL,
    source_url varchar(256),
    configuration jsonb,
    component_order integer,
    kyma_config_id uuid NOT NULL,
    foreign key (kyma_config_id) REFERENCES kyma_config (id) ON DELETE CASCADE
);

ALTER TABLE cluster ADD COLUMN active_kyma_config_id uuid;
ALTER TABLE cluster ADD CONSTRAINT cluster_active_kyma_config_id_fkey
    foreign key (active_kyma_config_id) REFERENCES kyma_config (id) DEFERRABLE INITIALLY DEFERRED;

CREATE TABLE runtime_upgrade
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    operation_id uuid NOT NULL,
    state runtime_upgrade_state NOT NULL,
    pre_upgrade_kyma_config_id uuid NOT NULL,
    post_upgrade_kyma_config_id uuid NOT NULL,
    foreign key (operation_id) REFERENCES operation (id) ON DELETE CASCADE,
    foreign key (pre_upgrade_kyma_config_id) REFERENCES kyma_config (id) ON DELETE CASCADE,
    foreign key (post_upgrade_kyma_config_id) REFERENCES kyma_config (id) ON DELETE CASCADE
);

-- Later migrations, in their order.
ALTER TABLE operation ADD COLUMN stage varchar(256) NOT NULL DEFAULT '';
ALTER TABLE operation ALTER COLUMN stage DROP DEFAULT;
ALTER TABLE operation ADD COLUMN last_transition timestamp without time zone;
ALTER TABLE gardener_config ADD COLUMN enable_kubernetes_version_auto_update boolean NOT NULL DEFAULT false;
ALTER TABLE gardener_config ADD COLUMN enable_machine_image_version_auto_update boolean NOT NULL DEFAULT false;
ALTER TABLE gardener_config ADD COLUMN machine_image varchar(256);
ALTER TABLE gardener_config ADD COLUMN machine_image_version varchar(256);
ALTER TABLE gardener_config ADD COLUMN purpose varchar(256);
ALTER TABLE gardener_config ADD COLUMN licence_type varchar(256);
ALTER TABLE kyma_config ADD COLUMN profile kyma_profile;

CREATE TABLE cluster_administrator
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    cluster_id uuid NOT NULL,
    user_id text NOT NULL,
    foreign key (cluster_id) REFERENCES cluster (id) ON DELETE CASCADE
);

CREATE TABLE oidc_config
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    gardener_config_id uuid NOT NULL,
    client_id text NOT NULL,
    groups_claim text NOT NULL,
    issuer_url text NOT NULL,
    username_claim text NOT NULL,
    username_prefix text NOT NULL,
    foreign key (gardener_config_id) REFERENCES gardener_config (id) ON DELETE CASCADE
);

CREATE TABLE signing_algorithms
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    oidc_config_id uuid NOT NULL,
    algorithm text NOT NULL,
    foreign key (oidc_config_id) REFERENCES oidc_config (id) ON DELETE CASCADE
);

ALTER TABLE gardener_config ADD COLUMN exposure_class_name varchar(256);

ALTER TABLE operation ADD COLUMN err_message text NOT NULL DEFAULT '';
ALTER TABLE operation ADD COLUMN reason text NOT NULL DEFAULT '';
ALTER TABLE operation ADD COLUMN component text NOT NULL DEFAULT '';

CREATE TABLE dns_config
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    domain varchar(256) NOT NULL,
    gardener_config_id uuid NOT NULL,
    unique (gardener_config_id),
    foreign key (gardener_config_id) REFERENCES gardener_config (id) ON DELETE CASCADE
);

CREATE TABLE dns_providers
(
    id uuid PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    dns_config_id uuid NOT NULL,
    domains_include varchar(256) NOT NULL,
    is_primary boolean NOT NULL,
    secret_name varchar(256) NOT NULL,
    type varchar(256) NOT NULL,
    foreign key (dns_config_id) REFERENCES dns_config (id) ON DELETE CASCADE
);

ALTER TABLE gardener_config ADD COLUMN shoot_networking_filter_disabled boolean;
ALTER TABLE gardener_config ADD COLUMN control_plane_failure_tolerance varchar(256);
ALTER TABLE gardener_config ADD COLUMN eu_access boolean NOT NULL DEFAULT false;

ALTER TABLE cluster ADD COLUMN is_kubeconfig_encrypted boolean NOT NULL DEFAULT false;
ALTER TABLE cluster ALTER COLUMN is_kubeconfig_encrypted DROP DEFAULT;
ALTER TABLE cluster_administrator ADD COLUMN is_user_id_encrypted boolean NOT NULL DEFAULT false;
ALTER TABLE cluster_administrator ALTER COLUMN is_user_id_encrypted DROP DEFAULT;

ALTER TABLE gardener_config ADD COLUMN pods_cidr varchar(256);
ALTER TABLE gardener_config ADD COLUMN services_cidr varchar(256);

-- ---------------------------------------------------------------------------------------------
-- Rows

-- Two releases: one with Tiller (Kyma < 1.14 needed it), one without ('' as the original stored it).
INSERT INTO kyma_release (id, version, tiller_yaml, installer_yaml) VALUES -- E'...': \n is a newline
    ('5e1ea5e0-0000-4000-8000-000000000001', '2.0.0', '',
     E'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kyma-installer\n'),
    ('5e1ea5e0-0000-4000-8000-000000000002', '1.13.0',
     E'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: tiller\n',
     E'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kyma-installer # 1.13.0\n');

-- GCP: everything set; OIDC with two algorithms; DNS with a comma-joined provider; a plaintext
-- administrator (the flag false, as before encryption) and an encrypted one; an encrypted
-- kubeconfig; a finished provisioning, a finished Kyma upgrade and a shoot upgrade still in
-- progress; the original's Kyma rows.
INSERT INTO cluster (id, kubeconfig, tenant, creation_timestamp, deleted, sub_account_id,
                     active_kyma_config_id, is_kubeconfig_encrypted)
VALUES ('11111111-1111-4111-8111-111111111111',
        'Dx4tPEtaaXiHlqW0w9Lh8LIKUQBuhm/fIVPc0FNzaTHZB4Qy3MWAi8cLExb8H8+WN1J/MWRDgLHDFFTgQ/R/t/5aIvFwIRUs7NVH0uOQGS7icE94pSiAJwuczyKImxd2+27mmC2Ep+DnfVqN4WAvjjimGOLLFH675eKWoiLAo22sk6vsa8ug5PqFpFitM8DLYb7PhyI6cM5uQRX3T0JKLF6uNn8NlFhS0cUpgKCwpRAy4kCWK+YeVH8Nl4yatlZdzFX1oYrkQ7SUdObKTX7599eJpNgxTjEkNuh4E99PZDqKT/ccoP0OEAt2Sz0=',
        'tenant-gcp', '2023-03-01 09:00:00.123456', false, 'sub-account-gcp', NULL, true);

-- Its Kyma: provisioned with 1.13.0 (config c0: no profile, the early '[]' configuration,
-- components from before component_order, so NULL), then upgraded to 2.0.0 (config c1, the
-- active one: every kind of override, a secret value in plaintext as the original stored it,
-- component_order NULL, 0, 1 and 2). The upgrade is operation 0e..0003 with its
-- runtime_upgrade row. kprov reads c1's components as: cluster-essentials (NULL) and istio (0),
-- in id order, then compass-runtime-agent (1), then serverless (2).
INSERT INTO kyma_config (id, release_id, cluster_id, global_configuration, profile) VALUES
    ('5e1ea5e0-0000-4000-8000-0000000000c0', '5e1ea5e0-0000-4000-8000-000000000002',
     '11111111-1111-4111-8111-111111111111', '[]', NULL),
    ('5e1ea5e0-0000-4000-8000-0000000000c1', '5e1ea5e0-0000-4000-8000-000000000001',
     '11111111-1111-4111-8111-111111111111',
     '{"configEntries": [{"key": "global.domainName", "value": "c-gcp01.kyma.example.com", "secret": false},
                         {"key": "global.adminPassword", "value": "original-plain-secret", "secret": true}],
       "conflictStrategy": "Replace"}',
     'PRODUCTION');
UPDATE cluster SET active_kyma_config_id = '5e1ea5e0-0000-4000-8000-0000000000c1'
WHERE id = '11111111-1111-4111-8111-111111111111';
INSERT INTO kyma_component_config (id, component, namespace, source_url, configuration,
                                   component_order, kyma_config_id) VALUES
    ('5e1ea5e0-0000-4000-8000-0000000000a1', 'compass-runtime-agent', 'compass-system', NULL,
     '[]', NULL, '5e1ea5e0-0000-4000-8000-0000000000c0'),
    ('5e1ea5e0-0000-4000-8000-0000000000a2', 'cluster-essentials', 'kyma-system', NULL,
     NULL, NULL, '5e1ea5e0-0000-4000-8000-0000000000c0'),
    ('5e1ea5e0-0000-4000-8000-0000000000d1', 'compass-runtime-agent', 'compass-system', NULL,
     '{"configEntries": [{"key": "director.token", "value": "original-agent-token", "secret": true}],
       "conflictStrategy": ""}',
     1, '5e1ea5e0-0000-4000-8000-0000000000c1'),
    ('5e1ea5e0-0000-4000-8000-0000000000d2', 'cluster-essentials', 'kyma-system', NULL,
     '{"configEntries": [], "conflictStrategy": ""}', NULL, '5e1ea5e0-0000-4000-8000-0000000000c1'),
    ('5e1ea5e0-0000-4000-8000-0000000000d3', 'istio', 'istio-system', NULL,
     '{"configEntries": [{"key": "gateways.replicas", "value": "3", "secret": false}],
       "conflictStrategy": "Merge"}',
     0, '5e1ea5e0-0000-4000-8000-0000000000c1'),
    ('5e1ea5e0-0000-4000-8000-0000000000d4', 'serverless', 'kyma-system',
     'https://storage.example.com/serverless-2.0.0.tgz', NULL, 2,
     '5e1ea5e0-0000-4000-8000-0000000000c1');

INSERT INTO gardener_config (id, cluster_id, name, project_name, kubernetes_version,
    volume_size_gb, machine_type, region, provider, seed, target_secret, disk_type, worker_cidr,
    auto_scaler_min, auto_scaler_max, max_surge, max_unavailable, provider_specific_config,
    enable_kubernetes_version_auto_update, enable_machine_image_version_auto_update,
    machine_image, machine_image_version, purpose, licence_type, exposure_class_name,
    shoot_networking_filter_disabled, control_plane_failure_tolerance, eu_access, pods_cidr,
    services_cidr)
VALUES ('aaaaaaaa-1111-4111-8111-111111111111', '11111111-1111-4111-8111-111111111111',
        'c-gcp01', 'kyma', '1.26.9', '50', 'n2-standard-8', 'europe-west3', 'gcp', 'gcp-eu1',
        'gcp-trial-secret', 'pd-standard', '10.250.0.0/22', 3, 10, 4, 0,
        '{"zones": ["europe-west3-a", "europe-west3-b", "europe-west3-c"]}',
        true, false, 'gardenlinux', '934.11.0', 'production', NULL, NULL,
        false, 'zone', false, '100.64.0.0/12', '100.104.0.0/13');

INSERT INTO oidc_config (id, gardener_config_id, client_id, groups_claim, issuer_url,
                         username_claim, username_prefix)
VALUES ('aaaaaaaa-1111-4111-8111-111111111111', 'aaaaaaaa-1111-4111-8111-111111111111',
        '9bd05ed7-a930-44e6-8c79-e6defeb7dec9', 'groups',
        'https://kymatest.accounts400.ondemand.com', 'sub', '-');
INSERT INTO signing_algorithms (id, oidc_config_id, algorithm) VALUES
    ('5161a100-0000-4000-8000-000000000001', 'aaaaaaaa-1111-4111-8111-111111111111', 'RS256'),
    ('5161a100-0000-4000-8000-000000000002', 'aaaaaaaa-1111-4111-8111-111111111111', 'ES256');

INSERT INTO dns_config (id, domain, gardener_config_id)
VALUES ('d0d0d0d0-1111-4111-8111-111111111111', 'c-gcp01.kyma.example.com',
        'aaaaaaaa-1111-4111-8111-111111111111');
INSERT INTO dns_providers (id, dns_config_id, domains_include, is_primary, secret_name, type) VALUES
    ('d0d0d0d0-0000-4000-8000-000000000001', 'd0d0d0d0-1111-4111-8111-111111111111',
     'c-gcp01.kyma.example.com,*.c-gcp01.kyma.example.com', true, 'aws-route53-secret-dev',
     'aws-route53'),
    ('d0d0d0d0-0000-4000-8000-000000000002', 'd0d0d0d0-1111-4111-8111-111111111111',
     'other.example.com', false, 'azure-dns-secret', 'azure-dns');

INSERT INTO cluster_administrator (id, cluster_id, user_id, is_user_id_encrypted) VALUES
    ('ad000000-0000-4000-8000-000000000001', '11111111-1111-4111-8111-111111111111',
     'plain.admin@example.com', false),
    ('ad000000-0000-4000-8000-000000000002', '11111111-1111-4111-8111-111111111111',
     'ABEiM0RVZneImaq7zN3u/6WwpjfLLTqrDArApv/tHLx2oIFcgmL7CrDYhSPrly63', true);

INSERT INTO operation (id, type, state, message, start_timestamp, end_timestamp, cluster_id,
                       stage, last_transition, err_message, reason, component) VALUES
    ('0e000000-1111-4000-8000-000000000001', 'PROVISION', 'SUCCEEDED', 'Operation succeeded',
     '2023-03-01 09:00:01.000001', '2023-03-01 09:25:00.5', '11111111-1111-4111-8111-111111111111',
     'Finished', '2023-03-01 09:24:59.999999', '', '', ''),
    ('0e000000-1111-4000-8000-000000000003', 'UPGRADE', 'SUCCEEDED', 'Operation succeeded',
     '2023-05-10 08:00:00', '2023-05-10 08:40:00', '11111111-1111-4111-8111-111111111111',
     'Finished', '2023-05-10 08:39:59', '', '', ''),
    ('0e000000-1111-4000-8000-000000000002', 'UPGRADE_SHOOT', 'IN_PROGRESS',
     'Operation in progress. Stage WaitingForShootUpgrade', '2023-06-15 12:00:00',
     NULL, '11111111-1111-4111-8111-111111111111', 'WaitingForShootUpgrade',
     '2023-06-15 12:00:00', '', '', '');
INSERT INTO runtime_upgrade (id, operation_id, state, pre_upgrade_kyma_config_id,
                             post_upgrade_kyma_config_id)
VALUES ('5e1ea5e0-0000-4000-8000-0000000000e1', '0e000000-1111-4000-8000-000000000003',
        'SUCCEEDED', '5e1ea5e0-0000-4000-8000-0000000000c0',
        '5e1ea5e0-0000-4000-8000-0000000000c1');

-- Azure: the nullable columns NULL (sub_account_id and deleted too), JSON nulls kept, no OIDC,
-- DNS, administrators or kubeconfig; a failed provisioning with its last error.
INSERT INTO cluster (id, kubeconfig, tenant, creation_timestamp, deleted, sub_account_id,
                     active_kyma_config_id, is_kubeconfig_encrypted)
VALUES ('22222222-2222-4222-8222-222222222222', NULL, 'tenant-az', '2023-04-02 10:00:00',
        NULL, NULL, NULL, false);
INSERT INTO gardener_config (id, cluster_id, name, project_name, kubernetes_version,
    volume_size_gb, machine_type, region, provider, seed, target_secret, disk_type, worker_cidr,
    auto_scaler_min, auto_scaler_max, max_surge, max_unavailable, provider_specific_config,
    enable_kubernetes_version_auto_update, enable_machine_image_version_auto_update,
    machine_image, machine_image_version, purpose, licence_type, exposure_class_name,
    shoot_networking_filter_disabled, control_plane_failure_tolerance, eu_access, pods_cidr,
    services_cidr)
VALUES ('aaaaaaaa-2222-4222-8222-222222222222', '22222222-2222-4222-8222-222222222222',
        'c-az01', 'kyma', '1.25.11', NULL, 'Standard_D4_v3', 'westeurope', 'azure', '',
        'azure-trial-secret', NULL, '10.250.0.0/22', 2, 4, 1, 0,
        '{"vnetCidr": "10.250.0.0/22", "zones": null, "azureZones": [{"name": 1, "cidr": "10.250.0.0/25"}, {"name": 2, "cidr": "10.250.0.128/25"}], "enableNatGateway": true, "idleConnectionTimeoutMinutes": null}',
        false, false, NULL, NULL, NULL, 'TestDevelopmentAndDemo', NULL,
        NULL, NULL, true, NULL, NULL);
INSERT INTO operation (id, type, state, message, start_timestamp, end_timestamp, cluster_id,
                       stage, last_transition, err_message, reason, component) VALUES
    ('0e000000-2222-4000-8000-000000000001', 'PROVISION', 'FAILED',
     'error during cluster provisioning: rate limits exceeded', '2023-04-02 10:00:00.25',
     '2023-04-02 10:45:00', '22222222-2222-4222-8222-222222222222', 'WaitingForClusterCreation',
     '2023-04-02 10:05:00', 'error during cluster provisioning: rate limits exceeded',
     'ERR_INFRA_RATE_LIMITS_EXCEEDED', 'gardener');

-- AWS: soft-deleted after a deprovisioning (whose last_transition is NULL, as the original
-- writes it); an operation message left NULL by an old version.
INSERT INTO cluster (id, kubeconfig, tenant, creation_timestamp, deleted, sub_account_id,
                     active_kyma_config_id, is_kubeconfig_encrypted)
VALUES ('33333333-3333-4333-8333-333333333333', NULL, 'tenant-aws', '2023-02-10 07:30:00',
        true, '', NULL, false);
INSERT INTO gardener_config (id, cluster_id, name, project_name, kubernetes_version,
    volume_size_gb, machine_type, region, provider, seed, target_secret, disk_type, worker_cidr,
    auto_scaler_min, auto_scaler_max, max_surge, max_unavailable, provider_specific_config,
    enable_kubernetes_version_auto_update, enable_machine_image_version_auto_update,
    machine_image, machine_image_version, purpose, licence_type, exposure_class_name,
    shoot_networking_filter_disabled, control_plane_failure_tolerance, eu_access, pods_cidr,
    services_cidr)
VALUES ('aaaaaaaa-3333-4333-8333-333333333333', '33333333-3333-4333-8333-333333333333',
        'c-aws01', 'kyma', '1.25.11', '80', 'm6i.large', 'eu-central-1', 'aws', 'aws-eu1',
        'aws-trial-secret', 'gp3', '10.250.0.0/16', 1, 3, 1, 0,
        '{"vpcCidr": "10.250.0.0/16", "awsZones": [{"name": "eu-central-1a", "publicCidr": "10.250.32.0/20", "internalCidr": "10.250.48.0/20", "workerCidr": "10.250.0.0/19"}]}',
        false, true, 'gardenlinux', '576.12.0', 'evaluation', NULL, 'internet',
        true, NULL, false, NULL, NULL);
INSERT INTO cluster_administrator (id, cluster_id, user_id, is_user_id_encrypted) VALUES
    ('ad000000-0000-4000-8000-000000000003', '33333333-3333-4333-8333-333333333333',
     'aws.admin@example.com', false);
INSERT INTO operation (id, type, state, message, start_timestamp, end_timestamp, cluster_id,
                       stage, last_transition, err_message, reason, component) VALUES
    ('0e000000-3333-4000-8000-000000000001', 'PROVISION', 'SUCCEEDED', NULL,
     '2023-02-10 07:30:01', '2023-02-10 07:55:00', '33333333-3333-4333-8333-333333333333',
     'Finished', '2023-02-10 07:54:00', '', '', ''),
    ('0e000000-3333-4000-8000-000000000002', 'DEPROVISION_NO_INSTALL', 'SUCCEEDED',
     'Operation succeeded', '2023-05-02 11:00:00', '2023-05-02 11:20:00',
     '33333333-3333-4333-8333-333333333333', 'Finished', NULL, '', '', '');

-- OpenStack: a deprovisioning in progress, with a NULL last_transition.
INSERT INTO cluster (id, kubeconfig, tenant, creation_timestamp, deleted, sub_account_id,
                     active_kyma_config_id, is_kubeconfig_encrypted)
VALUES ('44444444-4444-4444-8444-444444444444', NULL, 'tenant-os', '2023-05-20 14:00:00',
        false, 'sub-account-os', NULL, false);
INSERT INTO gardener_config (id, cluster_id, name, project_name, kubernetes_version,
    volume_size_gb, machine_type, region, provider, seed, target_secret, disk_type, worker_cidr,
    auto_scaler_min, auto_scaler_max, max_surge, max_unavailable, provider_specific_config,
    enable_kubernetes_version_auto_update, enable_machine_image_version_auto_update,
    machine_image, machine_image_version, purpose, licence_type, exposure_class_name,
    shoot_networking_filter_disabled, control_plane_failure_tolerance, eu_access, pods_cidr,
    services_cidr)
VALUES ('aaaaaaaa-4444-4444-8444-444444444444', '44444444-4444-4444-8444-444444444444',
        'c-os01', 'kyma', '1.26.9', NULL, 'g_c4_m16', 'eu-de-1', 'openstack', 'os-eu1',
        'openstack-secret', NULL, '10.250.0.0/16', 1, 2, 1, 0,
        '{"zones": ["eu-de-1a"], "floatingPoolName": "FloatingIP-external-kyma-01", "cloudProfileName": "converged-cloud-kyma", "loadBalancerProvider": "f5"}',
        false, false, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, false, NULL, NULL);
INSERT INTO operation (id, type, state, message, start_timestamp, end_timestamp, cluster_id,
                       stage, last_transition, err_message, reason, component) VALUES
    ('0e000000-4444-4000-8000-000000000001', 'PROVISION', 'SUCCEEDED', 'Operation succeeded',
     '2023-05-20 14:00:01', '2023-05-20 14:30:00', '44444444-4444-4444-8444-444444444444',
     'Finished', '2023-05-20 14:29:00', '', '', ''),
    ('0e000000-4444-4000-8000-000000000002', 'DEPROVISION_NO_INSTALL', 'IN_PROGRESS',
     'Deprovisioning started', '2023-07-01 08:00:00', NULL,
     '44444444-4444-4444-8444-444444444444', 'DeprovisionCluster', NULL, '', '', '');
