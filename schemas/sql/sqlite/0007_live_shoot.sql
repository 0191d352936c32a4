-- A live runtime owns its shoot name within its Gardener project (ARCHITECTURE.md, deliberate
-- difference 13; the same as postgres/0006). One row per runtime that is not deprovisioned,
-- written in the transaction that writes the runtime and removed by its soft delete: the
-- primary key refuses a second live runtime of that name, whoever asks and however many ask
-- at once.
CREATE TABLE live_shoot (
    project_name TEXT NOT NULL,
    shoot_name TEXT NOT NULL,
    cluster_id TEXT NOT NULL UNIQUE REFERENCES cluster (id) ON DELETE CASCADE,
    PRIMARY KEY (project_name, shoot_name)
);

-- The original let several live runtimes share a name (it dropped its unique constraint in
-- 2021). The newest of each name owns it; the older ones keep working, and the ownership check
-- of every shoot write (the shoot's runtime-id annotation) keeps them off each other's shoot.
INSERT INTO live_shoot (project_name, shoot_name, cluster_id)
SELECT project_name, name, cluster_id
FROM (SELECT g.project_name, g.name, g.cluster_id,
             ROW_NUMBER() OVER (PARTITION BY g.project_name, g.name
                                ORDER BY c.creation_timestamp DESC, c.id DESC) AS newest
      FROM gardener_config g JOIN cluster c ON c.id = g.cluster_id
      WHERE COALESCE(c.deleted, 0) = 0)
WHERE newest = 1;
