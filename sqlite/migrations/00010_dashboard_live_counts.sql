-- The dashboard counts live records per consent and status and anonymised ones apart: the
-- covering index of the consent counts gains anonymised_at after the kind, so that both counts
-- stay one pass over the index, no record read.

-- +goose Up
DROP INDEX IF EXISTS records_consents;
CREATE INDEX records_consents ON records (tenant_id, kind, anonymised_at, pp_status, pp_deadline, ge_status, ge_deadline, gp_status, gp_deadline);

-- +goose Down
DROP INDEX records_consents;
CREATE INDEX records_consents ON records (tenant_id, kind, pp_status, pp_deadline, ge_status, ge_deadline, gp_status, gp_deadline);
