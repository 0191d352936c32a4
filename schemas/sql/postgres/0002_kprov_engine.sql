-- kprov's additions: runtime input kept beside the cluster, leases and scheduling of operations,
-- the history of stage transitions, the one-in-progress rule and the indexes the queries need.
-- Additive only: the original's columns keep their meaning.

-- (PostgreSQL 12+ allows this inside a transaction as long as the value is not used in it.)
ALTER TYPE operation_type ADD VALUE IF NOT EXISTS 'WAKE_UP';

ALTER TABLE cluster
    ADD COLUMN IF NOT EXISTS runtime_name text NOT NULL DEFAULT '',
    ADD COLUMN IF NOT EXISTS description text NOT NULL DEFAULT '',
    ADD COLUMN IF NOT EXISTS labels jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN IF NOT EXISTS kyma_config jsonb;

ALTER TABLE operation
    ADD COLUMN IF NOT EXISTS lease_owner text,
    ADD COLUMN IF NOT EXISTS lease_expires_at timestamp without time zone,
    ADD COLUMN IF NOT EXISTS next_run_at timestamp without time zone NOT NULL
        DEFAULT (now() AT TIME ZONE 'UTC'),
    ADD COLUMN IF NOT EXISTS attempts integer NOT NULL DEFAULT 0;

CREATE TABLE IF NOT EXISTS operation_transition (
    id bigserial PRIMARY KEY,
    operation_id uuid NOT NULL REFERENCES operation (id) ON DELETE CASCADE,
    from_stage varchar(256) NOT NULL DEFAULT '',
    to_stage varchar(256) NOT NULL,
    state operation_state NOT NULL,
    message text NOT NULL DEFAULT '',
    at timestamp without time zone NOT NULL
);
CREATE INDEX IF NOT EXISTS operation_transition_operation ON operation_transition (operation_id, id);

-- The original could start two operations for one runtime (its check was not atomic). Before the
-- rule becomes an index, keep the newest in-progress operation of each runtime and fail the rest,
-- saying why; nothing is deleted.
UPDATE operation o
SET state = 'FAILED',
    message = 'superseded by a newer in-progress operation of the same runtime (kprov migration 2)',
    end_timestamp = now() AT TIME ZONE 'UTC'
WHERE o.state = 'IN_PROGRESS'
  AND EXISTS (SELECT 1 FROM operation n
              WHERE n.cluster_id = o.cluster_id AND n.state = 'IN_PROGRESS'
                AND (n.start_timestamp, n.id) > (o.start_timestamp, o.id));

CREATE UNIQUE INDEX IF NOT EXISTS operation_one_in_progress ON operation (cluster_id)
    WHERE state = 'IN_PROGRESS';
CREATE INDEX IF NOT EXISTS operation_cluster_start ON operation (cluster_id, start_timestamp DESC);
CREATE INDEX IF NOT EXISTS operation_due ON operation (next_run_at) WHERE state = 'IN_PROGRESS';
CREATE INDEX IF NOT EXISTS gardener_config_name ON gardener_config (name);
CREATE INDEX IF NOT EXISTS cluster_creation ON cluster (creation_timestamp DESC);
CREATE INDEX IF NOT EXISTS cluster_administrator_cluster ON cluster_administrator (cluster_id);
CREATE INDEX IF NOT EXISTS oidc_config_gardener_config ON oidc_config (gardener_config_id);
CREATE INDEX IF NOT EXISTS signing_algorithms_oidc ON signing_algorithms (oidc_config_id);
CREATE INDEX IF NOT EXISTS dns_providers_config ON dns_providers (dns_config_id);
