-- +goose Up
-- The statuses a list filter or a dashboard count asks for that few records hold: a consent
-- revoked, an e-mail or phone consent pending its confirmation (double opt-in). Each partial
-- index holds only the live records in that status, newest first as the lists read them (and
-- the pending deadline, so that pending and lapsed are counted in the index). A record enters
-- one only when it reaches that status: intake of a plain form writes none of them.
CREATE INDEX IF NOT EXISTS records_revoked_pp ON records (tenant_id, kind, created_at)
    WHERE pp_status = 'revoked' AND anonymised_at IS NULL;
CREATE INDEX IF NOT EXISTS records_revoked_ge ON records (tenant_id, kind, created_at)
    WHERE ge_status = 'revoked' AND anonymised_at IS NULL;
CREATE INDEX IF NOT EXISTS records_revoked_gp ON records (tenant_id, kind, created_at)
    WHERE gp_status = 'revoked' AND anonymised_at IS NULL;
CREATE INDEX IF NOT EXISTS records_pending_ge ON records (tenant_id, kind, created_at, rid, ge_deadline)
    WHERE ge_status = 'pending' AND anonymised_at IS NULL;
CREATE INDEX IF NOT EXISTS records_pending_gp ON records (tenant_id, kind, created_at, rid, gp_deadline)
    WHERE gp_status = 'pending' AND anonymised_at IS NULL;

-- +goose Down
DROP INDEX records_pending_gp;
DROP INDEX records_pending_ge;
DROP INDEX records_revoked_gp;
DROP INDEX records_revoked_ge;
DROP INDEX records_revoked_pp;
