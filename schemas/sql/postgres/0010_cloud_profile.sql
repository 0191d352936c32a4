-- The CloudProfile a runtime's shoot names (spec.cloudProfile), chosen at provisioning from the
-- runtime file or the provider's setting and kept so that a changed setting never moves an
-- existing shoot: a JSON object {kind, name}, NULL for runtimes stored before (their shoots use
-- the provider's historical default). The same as sqlite/0011.
ALTER TABLE gardener_config ADD COLUMN IF NOT EXISTS cloud_profile text;
