-- A used confirmation link is remembered until its link expires; after that the link is
-- refused as lapsed anyway (and a confirmed consent reads "used" by its proof), so Spend
-- drops the tenant's expired rows. This index keeps that delete off a scan of the tenant.

-- +goose Up
CREATE INDEX IF NOT EXISTS spent_tokens_expiry ON spent_tokens (tenant_id, expires_at);

-- +goose Down
DROP INDEX IF EXISTS spent_tokens_expiry;
