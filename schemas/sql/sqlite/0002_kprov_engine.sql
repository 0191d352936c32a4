-- kprov's additions (the same as postgres/0002): runtime input, leases and scheduling, the
-- transition history, the one-in-progress rule and indexes. SQLite cannot alter a CHECK
-- constraint, so `operation` is rebuilt to admit WAKE_UP.

ALTER TABLE cluster ADD COLUMN runtime_name TEXT NOT NULL DEFAULT '';
ALTER TABLE cluster ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE cluster ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';
ALTER TABLE cluster ADD COLUMN kyma_config TEXT;

CREATE TABLE operation_new (
    id TEXT PRIMARY KEY CHECK (id <> '00000000-0000-0000-0000-000000000000'),
    type TEXT NOT NULL CHECK (type IN ('PROVISION', 'UPGRADE', 'DEPROVISION', 'RECONNECT_RUNTIME',
        'UPGRADE_SHOOT', 'HIBERNATE', 'PROVISION_NO_INSTALL', 'DEPROVISION_NO_INSTALL', 'WAKE_UP')),
    state TEXT NOT NULL CHECK (state IN ('IN_PROGRESS', 'SUCCEEDED', 'FAILED')),
    message TEXT,
    start_timestamp TEXT NOT NULL,
    end_timestamp TEXT,
    cluster_id TEXT NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    stage TEXT NOT NULL,
    last_transition TEXT,
    err_message TEXT DEFAULT '',
    reason TEXT DEFAULT '',
    component TEXT DEFAULT '',
    lease_owner TEXT,
    lease_expires_at TEXT,
    next_run_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f000', 'now')),
    attempts INTEGER NOT NULL DEFAULT 0
);
INSERT INTO operation_new (id, type, state, message, start_timestamp, end_timestamp, cluster_id,
                           stage, last_transition, err_message, reason, component)
    SELECT id, type, state, message, start_timestamp, end_timestamp, cluster_id, stage,
           last_transition, err_message, reason, component FROM operation;
DROP TABLE operation;
ALTER TABLE operation_new RENAME TO operation;

CREATE TABLE operation_transition (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    operation_id TEXT NOT NULL REFERENCES operation (id) ON DELETE CASCADE,
    from_stage TEXT NOT NULL DEFAULT '',
    to_stage TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('IN_PROGRESS', 'SUCCEEDED', 'FAILED')),
    message TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL
);
CREATE INDEX operation_transition_operation ON operation_transition (operation_id, id);

-- As in postgres/0002: before the one-in-progress rule becomes an index, keep the newest
-- in-progress operation of each runtime and fail the rest, saying why; nothing is deleted.
UPDATE operation
SET state = 'FAILED',
    message = 'superseded by a newer in-progress operation of the same runtime (kprov migration 2)',
    end_timestamp = strftime('%Y-%m-%d %H:%M:%f000', 'now')
WHERE state = 'IN_PROGRESS'
  AND EXISTS (SELECT 1 FROM operation n
              WHERE n.cluster_id = operation.cluster_id AND n.state = 'IN_PROGRESS'
                AND (n.start_timestamp, n.id) > (operation.start_timestamp, operation.id));

CREATE UNIQUE INDEX operation_one_in_progress ON operation (cluster_id) WHERE state = 'IN_PROGRESS';
CREATE INDEX operation_cluster_start ON operation (cluster_id, start_timestamp DESC);
CREATE INDEX operation_due ON operation (next_run_at) WHERE state = 'IN_PROGRESS';
CREATE INDEX gardener_config_name ON gardener_config (name);
CREATE INDEX cluster_creation ON cluster (creation_timestamp DESC);
CREATE INDEX cluster_administrator_cluster ON cluster_administrator (cluster_id);
CREATE INDEX oidc_config_gardener_config ON oidc_config (gardener_config_id);
CREATE INDEX signing_algorithms_oidc ON signing_algorithms (oidc_config_id);
CREATE INDEX dns_providers_config ON dns_providers (dns_config_id);
