-- A version per runtime that moves whenever what the API shows of the runtime changes: its
-- cluster row, gardener config with OIDC and DNS, and operations. kprov serve keeps the
-- answers of status queries with the version they were read at, and reuses one while the
-- version stands (src/api/answer_cache.hpp), so a commit to one runtime leaves the kept
-- answers of every other runtime valid. Triggers keep it, so a change by any process counts,
-- kprov or not. Versions only grow: a runtime's row stays when the runtime is deleted, and a
-- runtime created again under the same id continues from there.
--
-- Claims, renewals and releases change only an operation's lease, attempts and next_run_at,
-- which no answer shows: they leave the version alone.
CREATE TABLE runtime_version (
    cluster_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL DEFAULT 1
) WITHOUT ROWID;

INSERT INTO runtime_version (cluster_id) SELECT id FROM cluster;

CREATE TRIGGER runtime_version_cluster_insert AFTER INSERT ON cluster BEGIN
    INSERT INTO runtime_version (cluster_id) VALUES (NEW.id)
        ON CONFLICT (cluster_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER runtime_version_cluster_update AFTER UPDATE ON cluster BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id IN (OLD.id, NEW.id);
END;
CREATE TRIGGER runtime_version_cluster_delete AFTER DELETE ON cluster BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id = OLD.id;
END;

CREATE TRIGGER runtime_version_operation_insert AFTER INSERT ON operation BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id = NEW.cluster_id;
END;
CREATE TRIGGER runtime_version_operation_update
AFTER UPDATE OF id, type, state, message, start_timestamp, end_timestamp, cluster_id, stage,
    last_transition, err_message, reason, component ON operation BEGIN
    UPDATE runtime_version SET version = version + 1
        WHERE cluster_id IN (OLD.cluster_id, NEW.cluster_id);
END;
CREATE TRIGGER runtime_version_operation_delete AFTER DELETE ON operation BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id = OLD.cluster_id;
END;

CREATE TRIGGER runtime_version_gardener_insert AFTER INSERT ON gardener_config BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id = NEW.cluster_id;
END;
CREATE TRIGGER runtime_version_gardener_update AFTER UPDATE ON gardener_config BEGIN
    UPDATE runtime_version SET version = version + 1
        WHERE cluster_id IN (OLD.cluster_id, NEW.cluster_id);
END;
CREATE TRIGGER runtime_version_gardener_delete AFTER DELETE ON gardener_config BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id = OLD.cluster_id;
END;

-- The gardener config's children find their runtime through it. When a whole runtime goes,
-- its cluster's trigger has counted already.
CREATE TRIGGER runtime_version_oidc_insert AFTER INSERT ON oidc_config BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id =
        (SELECT cluster_id FROM gardener_config WHERE id = NEW.gardener_config_id);
END;
CREATE TRIGGER runtime_version_oidc_update AFTER UPDATE ON oidc_config BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id IN
        (SELECT cluster_id FROM gardener_config
         WHERE id IN (OLD.gardener_config_id, NEW.gardener_config_id));
END;
CREATE TRIGGER runtime_version_oidc_delete AFTER DELETE ON oidc_config BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id =
        (SELECT cluster_id FROM gardener_config WHERE id = OLD.gardener_config_id);
END;

CREATE TRIGGER runtime_version_signing_insert AFTER INSERT ON signing_algorithms BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id =
        (SELECT g.cluster_id FROM oidc_config o JOIN gardener_config g ON g.id = o.gardener_config_id
         WHERE o.id = NEW.oidc_config_id);
END;
CREATE TRIGGER runtime_version_signing_update AFTER UPDATE ON signing_algorithms BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id IN
        (SELECT g.cluster_id FROM oidc_config o JOIN gardener_config g ON g.id = o.gardener_config_id
         WHERE o.id IN (OLD.oidc_config_id, NEW.oidc_config_id));
END;
CREATE TRIGGER runtime_version_signing_delete AFTER DELETE ON signing_algorithms BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id =
        (SELECT g.cluster_id FROM oidc_config o JOIN gardener_config g ON g.id = o.gardener_config_id
         WHERE o.id = OLD.oidc_config_id);
END;

CREATE TRIGGER runtime_version_dns_insert AFTER INSERT ON dns_config BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id =
        (SELECT cluster_id FROM gardener_config WHERE id = NEW.gardener_config_id);
END;
CREATE TRIGGER runtime_version_dns_update AFTER UPDATE ON dns_config BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id IN
        (SELECT cluster_id FROM gardener_config
         WHERE id IN (OLD.gardener_config_id, NEW.gardener_config_id));
END;
CREATE TRIGGER runtime_version_dns_delete AFTER DELETE ON dns_config BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id =
        (SELECT cluster_id FROM gardener_config WHERE id = OLD.gardener_config_id);
END;

CREATE TRIGGER runtime_version_dns_provider_insert AFTER INSERT ON dns_providers BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id =
        (SELECT g.cluster_id FROM dns_config d JOIN gardener_config g ON g.id = d.gardener_config_id
         WHERE d.id = NEW.dns_config_id);
END;
CREATE TRIGGER runtime_version_dns_provider_update AFTER UPDATE ON dns_providers BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id IN
        (SELECT g.cluster_id FROM dns_config d JOIN gardener_config g ON g.id = d.gardener_config_id
         WHERE d.id IN (OLD.dns_config_id, NEW.dns_config_id));
END;
CREATE TRIGGER runtime_version_dns_provider_delete AFTER DELETE ON dns_providers BEGIN
    UPDATE runtime_version SET version = version + 1 WHERE cluster_id =
        (SELECT g.cluster_id FROM dns_config d JOIN gardener_config g ON g.id = d.gardener_config_id
         WHERE d.id = OLD.dns_config_id);
END;
