-- The runtime file's lifecycle.hibernationSchedules, which kprov writes to the shoot's
-- spec.hibernation.schedules: a JSON array of {start, end, location}, NULL for none. A column of
-- the runtime's gardener config, so it is written in the same transaction as the runtime and
-- read wherever the shoot is built. The same as sqlite/0010.
ALTER TABLE gardener_config ADD COLUMN IF NOT EXISTS hibernation_schedules text;
