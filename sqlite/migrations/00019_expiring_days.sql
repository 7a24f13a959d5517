-- +goose Up
-- The dashboard's chart of general-contact consents expiring per day, kept beside the records
-- like record_days (00017): per tenant, channel ('ge' e-mail, 'gp' phone) and UTC day of the
-- deadline, how many live records hold that consent granted with that deadline: the records of
-- the re-permission list's partial indexes, counted. Triggers keep it in every write's
-- transaction; the chart reads whole days here and only its first and last day in the index.
CREATE TABLE IF NOT EXISTS record_expiring_days (
    tenant_id TEXT    NOT NULL,
    channel   TEXT    NOT NULL,
    day       INTEGER NOT NULL, -- UTC days since the epoch of the deadline
    n         INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, channel, day)
) WITHOUT ROWID;

INSERT INTO record_expiring_days (tenant_id, channel, day, n)
    SELECT tenant_id, 'ge', ge_deadline / 86400000, count(*) FROM records INDEXED BY records_expiring_email
    WHERE ge_status = 'granted' AND ge_deadline IS NOT NULL AND anonymised_at IS NULL GROUP BY 1, 3;
INSERT INTO record_expiring_days (tenant_id, channel, day, n)
    SELECT tenant_id, 'gp', gp_deadline / 86400000, count(*) FROM records INDEXED BY records_expiring_phone
    WHERE gp_status = 'granted' AND gp_deadline IS NOT NULL AND anonymised_at IS NULL GROUP BY 1, 3;

-- +goose StatementBegin
CREATE TRIGGER records_expiring_insert AFTER INSERT ON records
WHEN new.anonymised_at IS NULL AND ((new.ge_status = 'granted' AND new.ge_deadline IS NOT NULL)
    OR (new.gp_status = 'granted' AND new.gp_deadline IS NOT NULL))
BEGIN
    INSERT INTO record_expiring_days (tenant_id, channel, day, n)
        SELECT new.tenant_id, 'ge', new.ge_deadline / 86400000, 1 WHERE new.ge_status = 'granted' AND new.ge_deadline IS NOT NULL
        ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO record_expiring_days (tenant_id, channel, day, n)
        SELECT new.tenant_id, 'gp', new.gp_deadline / 86400000, 1 WHERE new.gp_status = 'granted' AND new.gp_deadline IS NOT NULL
        ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER records_expiring_delete AFTER DELETE ON records
WHEN old.anonymised_at IS NULL AND ((old.ge_status = 'granted' AND old.ge_deadline IS NOT NULL)
    OR (old.gp_status = 'granted' AND old.gp_deadline IS NOT NULL))
BEGIN
    UPDATE record_expiring_days SET n = n - 1 WHERE tenant_id = old.tenant_id AND channel = 'ge' AND day = old.ge_deadline / 86400000
        AND old.ge_status = 'granted' AND old.ge_deadline IS NOT NULL;
    UPDATE record_expiring_days SET n = n - 1 WHERE tenant_id = old.tenant_id AND channel = 'gp' AND day = old.gp_deadline / 86400000
        AND old.gp_status = 'granted' AND old.gp_deadline IS NOT NULL;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER records_expiring_update AFTER UPDATE OF tenant_id, anonymised_at, ge_status, ge_deadline, gp_status, gp_deadline ON records
WHEN old.tenant_id IS NOT new.tenant_id OR (old.anonymised_at IS NULL) IS NOT (new.anonymised_at IS NULL)
    OR old.ge_status IS NOT new.ge_status OR old.ge_deadline / 86400000 IS NOT new.ge_deadline / 86400000
    OR old.gp_status IS NOT new.gp_status OR old.gp_deadline / 86400000 IS NOT new.gp_deadline / 86400000
BEGIN
    UPDATE record_expiring_days SET n = n - 1 WHERE tenant_id = old.tenant_id AND channel = 'ge' AND day = old.ge_deadline / 86400000
        AND old.anonymised_at IS NULL AND old.ge_status = 'granted' AND old.ge_deadline IS NOT NULL;
    UPDATE record_expiring_days SET n = n - 1 WHERE tenant_id = old.tenant_id AND channel = 'gp' AND day = old.gp_deadline / 86400000
        AND old.anonymised_at IS NULL AND old.gp_status = 'granted' AND old.gp_deadline IS NOT NULL;
    INSERT INTO record_expiring_days (tenant_id, channel, day, n)
        SELECT new.tenant_id, 'ge', new.ge_deadline / 86400000, 1
        WHERE new.anonymised_at IS NULL AND new.ge_status = 'granted' AND new.ge_deadline IS NOT NULL
        ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO record_expiring_days (tenant_id, channel, day, n)
        SELECT new.tenant_id, 'gp', new.gp_deadline / 86400000, 1
        WHERE new.anonymised_at IS NULL AND new.gp_status = 'granted' AND new.gp_deadline IS NOT NULL
        ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER records_expiring_update;
DROP TRIGGER records_expiring_delete;
DROP TRIGGER records_expiring_insert;
DROP TABLE record_expiring_days;
