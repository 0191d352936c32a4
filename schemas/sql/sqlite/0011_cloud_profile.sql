-- The CloudProfile a runtime's shoot names (spec.cloudProfile), chosen at provisioning from the
-- runtime file or the provider's setting and kept so that a changed setting never moves an
-- existing shoot: a JSON object {kind, name}, NULL for runtimes stored before (their shoots use
-- the provider's historical default). The same as postgres/0010.
ALTER TABLE gardener_config ADD COLUMN cloud_profile TEXT;
