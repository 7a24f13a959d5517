-- The re-permission list reads one partial index per channel, for the tenant and per form: the
-- per-form indexes of migration 00003 go, and form_id joins the tenant-wide ones as their last
-- column, so that a per-form page filters on the index itself (no table row is read for a
-- record of another form). Each new record with granted, dated general-contact consents updates
-- two indexes fewer.

-- +goose Up
DROP INDEX IF EXISTS records_expiring_email_form;
DROP INDEX IF EXISTS records_expiring_phone_form;
DROP INDEX IF EXISTS records_expiring_email;
DROP INDEX IF EXISTS records_expiring_phone;
CREATE INDEX records_expiring_email ON records (tenant_id, ge_deadline, kind, public_id, form_id)
    WHERE ge_status = 'granted' AND ge_deadline IS NOT NULL AND anonymised_at IS NULL;
CREATE INDEX records_expiring_phone ON records (tenant_id, gp_deadline, kind, public_id, form_id)
    WHERE gp_status = 'granted' AND gp_deadline IS NOT NULL AND anonymised_at IS NULL;

-- +goose Down
DROP INDEX records_expiring_phone;
DROP INDEX records_expiring_email;
CREATE INDEX records_expiring_email ON records (tenant_id, ge_deadline, kind, public_id)
    WHERE ge_status = 'granted' AND ge_deadline IS NOT NULL AND anonymised_at IS NULL;
CREATE INDEX records_expiring_email_form ON records (tenant_id, form_id, ge_deadline, kind, public_id)
    WHERE ge_status = 'granted' AND ge_deadline IS NOT NULL AND anonymised_at IS NULL;
CREATE INDEX records_expiring_phone ON records (tenant_id, gp_deadline, kind, public_id)
    WHERE gp_status = 'granted' AND gp_deadline IS NOT NULL AND anonymised_at IS NULL;
CREATE INDEX records_expiring_phone_form ON records (tenant_id, form_id, gp_deadline, kind, public_id)
    WHERE gp_status = 'granted' AND gp_deadline IS NOT NULL AND anonymised_at IS NULL;
