-- kprov's desired state of a runtime (the runtime file's `lifecycle:` block): protection against
-- deprovisioning and a lifetime after which the workers deprovision it; and the runtime's events
-- outside its operations (protected, unprotected, expired), which `kprov history` shows beside
-- them. Tables of their own: the original's cluster table keeps its columns. The same as
-- sqlite/0009.
CREATE TABLE IF NOT EXISTS runtime_lifecycle (
    cluster_id uuid PRIMARY KEY REFERENCES cluster (id) ON DELETE CASCADE,
    protected boolean NOT NULL DEFAULT false,
    expires_at timestamp without time zone
);
CREATE INDEX IF NOT EXISTS runtime_lifecycle_expiry ON runtime_lifecycle (expires_at)
    WHERE expires_at IS NOT NULL AND NOT protected;

CREATE TABLE IF NOT EXISTS runtime_event (
    id bigserial PRIMARY KEY,
    cluster_id uuid NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    at timestamp without time zone NOT NULL,
    kind varchar(64) NOT NULL,
    message text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runtime_event_cluster ON runtime_event (cluster_id, id);
