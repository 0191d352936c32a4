-- The original's Kyma tables (0001) had no indexes besides their keys. kprov reads a runtime's
-- configuration and components and an operation's runtime_upgrade row on every status, so
-- those lookups get indexes (the same as sqlite/0008). Additive only.
CREATE INDEX IF NOT EXISTS kyma_config_cluster ON kyma_config (cluster_id);
CREATE INDEX IF NOT EXISTS kyma_component_config_config ON kyma_component_config (kyma_config_id);
CREATE INDEX IF NOT EXISTS runtime_upgrade_operation ON runtime_upgrade (operation_id);
