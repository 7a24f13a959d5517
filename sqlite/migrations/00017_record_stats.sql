-- +goose Up
-- Counts kept beside the records, so that the dashboard reads a few rows instead of every
-- record of the tenant: record_stats holds how many records of each tenant and kind have each
-- combination of stored consent statuses (anonymised records apart), record_days how many each
-- tenant and kind received per UTC day. Triggers keep both in the transaction of every write
-- (intake, revocation, erasure, expiry, retention, import), so they cannot drift from the table.
-- The nine-column covering index of the statuses, which the dashboard used to read in full and
-- every record had to update, goes.
CREATE TABLE IF NOT EXISTS record_stats (
    tenant_id  TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    anonymised INTEGER NOT NULL,
    pp_status  TEXT    NOT NULL,
    ge_status  TEXT    NOT NULL,
    gp_status  TEXT    NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, kind, anonymised, pp_status, ge_status, gp_status)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS record_days (
    tenant_id TEXT    NOT NULL,
    kind      TEXT    NOT NULL,
    day       INTEGER NOT NULL, -- UTC days since the epoch
    n         INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, kind, day)
) WITHOUT ROWID;

INSERT INTO record_stats (tenant_id, kind, anonymised, pp_status, ge_status, gp_status, n)
    SELECT tenant_id, kind, anonymised_at IS NOT NULL, pp_status, ge_status, gp_status, count(*)
    FROM records GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO record_days (tenant_id, kind, day, n)
    SELECT tenant_id, kind, created_at / 86400000, count(*) FROM records GROUP BY 1, 2, 3;

-- +goose StatementBegin
CREATE TRIGGER records_stats_insert AFTER INSERT ON records BEGIN
    INSERT INTO record_stats (tenant_id, kind, anonymised, pp_status, ge_status, gp_status, n)
        VALUES (new.tenant_id, new.kind, new.anonymised_at IS NOT NULL, new.pp_status, new.ge_status, new.gp_status, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO record_days (tenant_id, kind, day, n) VALUES (new.tenant_id, new.kind, new.created_at / 86400000, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER records_stats_delete AFTER DELETE ON records BEGIN
    UPDATE record_stats SET n = n - 1 WHERE tenant_id = old.tenant_id AND kind = old.kind
        AND anonymised = (old.anonymised_at IS NOT NULL) AND pp_status = old.pp_status
        AND ge_status = old.ge_status AND gp_status = old.gp_status;
    UPDATE record_days SET n = n - 1 WHERE tenant_id = old.tenant_id AND kind = old.kind
        AND day = old.created_at / 86400000;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER records_stats_update AFTER UPDATE OF tenant_id, kind, anonymised_at, pp_status, ge_status, gp_status ON records
WHEN old.tenant_id IS NOT new.tenant_id OR old.kind IS NOT new.kind
    OR (old.anonymised_at IS NULL) IS NOT (new.anonymised_at IS NULL)
    OR old.pp_status IS NOT new.pp_status OR old.ge_status IS NOT new.ge_status OR old.gp_status IS NOT new.gp_status
BEGIN
    UPDATE record_stats SET n = n - 1 WHERE tenant_id = old.tenant_id AND kind = old.kind
        AND anonymised = (old.anonymised_at IS NOT NULL) AND pp_status = old.pp_status
        AND ge_status = old.ge_status AND gp_status = old.gp_status;
    INSERT INTO record_stats (tenant_id, kind, anonymised, pp_status, ge_status, gp_status, n)
        VALUES (new.tenant_id, new.kind, new.anonymised_at IS NOT NULL, new.pp_status, new.ge_status, new.gp_status, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER records_days_update AFTER UPDATE OF tenant_id, kind, created_at ON records
WHEN old.tenant_id IS NOT new.tenant_id OR old.kind IS NOT new.kind OR old.created_at / 86400000 IS NOT new.created_at / 86400000
BEGIN
    UPDATE record_days SET n = n - 1 WHERE tenant_id = old.tenant_id AND kind = old.kind
        AND day = old.created_at / 86400000;
    INSERT INTO record_days (tenant_id, kind, day, n) VALUES (new.tenant_id, new.kind, new.created_at / 86400000, 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

DROP INDEX IF EXISTS records_consents;

-- +goose Down
CREATE INDEX records_consents ON records (tenant_id, kind, anonymised_at, pp_status, pp_deadline, ge_status, ge_deadline, gp_status, gp_deadline);
DROP TRIGGER records_days_update;
DROP TRIGGER records_stats_update;
DROP TRIGGER records_stats_delete;
DROP TRIGGER records_stats_insert;
DROP TABLE record_days;
DROP TABLE record_stats;
