-- Kyma on a runtime (kyma-installation.md §1.4, the same tables as postgres/0001): the cached
-- releases, the configurations (one per provisioning and per upgrade, never updated), their
-- components, and one runtime_upgrade row per UPGRADE operation. cluster.active_kyma_config_id
-- exists since 0001; SQLite cannot add a foreign key to an existing column, so the stores keep
-- it pointing at a kyma_config of the same cluster themselves (PostgreSQL has the original's
-- deferrable key). The JSON columns hold the original's configuration object; secret values
-- in it are encrypted by the store (row_mapping.hpp, kyma section).

CREATE TABLE kyma_release (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    version TEXT NOT NULL UNIQUE,
    tiller_yaml TEXT NOT NULL,
    installer_yaml TEXT NOT NULL
);

CREATE TABLE kyma_config (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    release_id TEXT NOT NULL REFERENCES kyma_release (id) ON DELETE RESTRICT,
    profile TEXT CHECK (profile IN ('EVALUATION', 'PRODUCTION')),
    cluster_id TEXT NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    global_configuration TEXT
);
CREATE INDEX kyma_config_cluster ON kyma_config (cluster_id);

CREATE TABLE kyma_component_config (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    component TEXT NOT NULL,
    namespace TEXT NOT NULL,
    source_url TEXT,
    configuration TEXT,
    component_order INTEGER,
    kyma_config_id TEXT NOT NULL REFERENCES kyma_config (id) ON DELETE CASCADE
);
-- Read as the original read them: by component_order (NULL as 0), then in row order.
CREATE INDEX kyma_component_config_config ON kyma_component_config (kyma_config_id);

CREATE TABLE runtime_upgrade (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    operation_id TEXT NOT NULL REFERENCES operation (id) ON DELETE CASCADE,
    state TEXT NOT NULL CHECK (state IN ('IN_PROGRESS', 'SUCCEEDED', 'FAILED', 'ROLLED_BACK')),
    pre_upgrade_kyma_config_id TEXT NOT NULL REFERENCES kyma_config (id) ON DELETE CASCADE,
    post_upgrade_kyma_config_id TEXT NOT NULL REFERENCES kyma_config (id) ON DELETE CASCADE
);
CREATE INDEX runtime_upgrade_operation ON runtime_upgrade (operation_id);

-- runtime_version (0006): switching the active config updates `cluster`, whose trigger counts
-- it; a configuration that is not active shows nowhere. The upgrade's state counts too.
CREATE TRIGGER runtime_version_runtime_upgrade_update AFTER UPDATE ON runtime_upgrade BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id IN
        (SELECT cluster_id FROM operation WHERE id IN (OLD.operation_id, NEW.operation_id));
END;
