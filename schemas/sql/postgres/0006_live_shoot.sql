-- A live runtime owns its shoot name within its Gardener project (ARCHITECTURE.md, deliberate
-- difference 13; the same as sqlite/0007). One row per runtime that is not deprovisioned,
-- written in the transaction that writes the runtime and removed by its soft delete: the
-- primary key refuses a second live runtime of that name, whoever asks and however many ask
-- at once (a concurrent insert of the same name waits for the first to commit).
CREATE TABLE IF NOT EXISTS live_shoot (
    project_name varchar(256) NOT NULL,
    shoot_name varchar(256) NOT NULL,
    cluster_id uuid NOT NULL UNIQUE REFERENCES cluster (id) ON DELETE CASCADE,
    PRIMARY KEY (project_name, shoot_name)
);

-- The original let several live runtimes share a name (it dropped its unique constraint in
-- 2021). The newest of each name owns it; the older ones keep working, and the ownership check
-- of every shoot write (the shoot's runtime-id annotation) keeps them off each other's shoot.
INSERT INTO live_shoot (project_name, shoot_name, cluster_id)
SELECT DISTINCT ON (g.project_name, g.name) g.project_name, g.name, g.cluster_id
FROM gardener_config g JOIN cluster c ON c.id = g.cluster_id
WHERE NOT COALESCE(c.deleted, false)
ORDER BY g.project_name, g.name, c.creation_timestamp DESC, c.id DESC
ON CONFLICT DO NOTHING;
