-- Retention settings, the moment each record's consents lapsed, and the indexes of the
-- re-permission list and of retention (docs/API.md §7.3, §10). Times are Unix milliseconds.

-- +goose Up
ALTER TABLE tenants ADD COLUMN retention TEXT NOT NULL DEFAULT '';
ALTER TABLE tenants ADD COLUMN retention_from TEXT NOT NULL DEFAULT '';
ALTER TABLE forms ADD COLUMN retention TEXT NOT NULL DEFAULT '';
ALTER TABLE forms ADD COLUMN retention_from TEXT NOT NULL DEFAULT '';

-- When the record's last consent stopped being granted (tenants.Consents.LapsedAt); NULL while
-- a consent is granted without a deadline. Computed here for the records stored before.
ALTER TABLE records ADD COLUMN lapsed_at INTEGER;
UPDATE records SET lapsed_at = CASE
    WHEN (pp_status = 'granted' AND pp_deadline IS NULL) OR (ge_status = 'granted' AND ge_deadline IS NULL)
        OR (gp_status = 'granted' AND gp_deadline IS NULL) THEN NULL
    ELSE coalesce(nullif(max(
        CASE pp_status WHEN 'granted' THEN pp_deadline WHEN 'expired' THEN coalesce(pp_deadline, created_at)
            WHEN 'revoked' THEN min(coalesce(pp_deadline, 9223372036854775807), coalesce(CAST(round((julianday(json_extract(body, '$.consents.primaryPurpose.revokedAt')) - 2440587.5) * 86400000) AS INTEGER), created_at))
            ELSE 0 END,
        CASE ge_status WHEN 'granted' THEN ge_deadline WHEN 'expired' THEN coalesce(ge_deadline, created_at)
            WHEN 'revoked' THEN min(coalesce(ge_deadline, 9223372036854775807), coalesce(CAST(round((julianday(json_extract(body, '$.consents.generalContactEmail.revokedAt')) - 2440587.5) * 86400000) AS INTEGER), created_at))
            ELSE 0 END,
        CASE gp_status WHEN 'granted' THEN gp_deadline WHEN 'expired' THEN coalesce(gp_deadline, created_at)
            WHEN 'revoked' THEN min(coalesce(gp_deadline, 9223372036854775807), coalesce(CAST(round((julianday(json_extract(body, '$.consents.generalContactPhone.revokedAt')) - 2440587.5) * 86400000) AS INTEGER), created_at))
            ELSE 0 END), 0), created_at)
END;

-- The re-permission list: per channel, the granted consents with a deadline of records not
-- anonymised (nobody left to ask) in deadline order
-- (the tie-breaker kind, public_id is the order of record ids), for the tenant and per form.
CREATE INDEX IF NOT EXISTS records_expiring_email ON records (tenant_id, ge_deadline, kind, public_id)
    WHERE ge_status = 'granted' AND ge_deadline IS NOT NULL AND anonymised_at IS NULL;
CREATE INDEX IF NOT EXISTS records_expiring_email_form ON records (tenant_id, form_id, ge_deadline, kind, public_id)
    WHERE ge_status = 'granted' AND ge_deadline IS NOT NULL AND anonymised_at IS NULL;
CREATE INDEX IF NOT EXISTS records_expiring_phone ON records (tenant_id, gp_deadline, kind, public_id)
    WHERE gp_status = 'granted' AND gp_deadline IS NOT NULL AND anonymised_at IS NULL;
CREATE INDEX IF NOT EXISTS records_expiring_phone_form ON records (tenant_id, form_id, gp_deadline, kind, public_id)
    WHERE gp_status = 'granted' AND gp_deadline IS NOT NULL AND anonymised_at IS NULL;

-- Retention: the records not yet anonymised, per form, by either basis.
CREATE INDEX IF NOT EXISTS records_retain_created ON records (tenant_id, form_id, created_at)
    WHERE anonymised_at IS NULL;
CREATE INDEX IF NOT EXISTS records_retain_lapsed ON records (tenant_id, form_id, lapsed_at)
    WHERE anonymised_at IS NULL AND lapsed_at IS NOT NULL;

-- +goose Down
DROP INDEX records_retain_lapsed;
DROP INDEX records_retain_created;
DROP INDEX records_expiring_phone_form;
DROP INDEX records_expiring_phone;
DROP INDEX records_expiring_email_form;
DROP INDEX records_expiring_email;
ALTER TABLE records DROP COLUMN lapsed_at;
ALTER TABLE forms DROP COLUMN retention_from;
ALTER TABLE forms DROP COLUMN retention;
ALTER TABLE tenants DROP COLUMN retention_from;
ALTER TABLE tenants DROP COLUMN retention;
