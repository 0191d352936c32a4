-- kprov's desired state of a runtime (the runtime file's `lifecycle:` block): protection against
-- deprovisioning and a lifetime after which the workers deprovision it; and the runtime's events
-- outside its operations (protected, unprotected, expired), which `kprov history` shows beside
-- them. The same as postgres/0008.
CREATE TABLE runtime_lifecycle (
    cluster_id TEXT PRIMARY KEY REFERENCES cluster (id) ON DELETE CASCADE,
    protected INTEGER NOT NULL DEFAULT 0,
    expires_at TEXT
);
CREATE INDEX runtime_lifecycle_expiry ON runtime_lifecycle (expires_at)
    WHERE expires_at IS NOT NULL AND protected = 0;

CREATE TABLE runtime_event (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    cluster_id TEXT NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runtime_event_cluster ON runtime_event (cluster_id, id);
