-- Inbound SMS opt-outs (docs/PROVIDERS.md): each tenant's secret per SMS provider, sealed
-- (AES-GCM) under the server's secrets key, which never enters the database; and the provider
-- message ids already applied, so that a replayed message changes nothing twice.

-- +goose Up
CREATE TABLE sms_secrets (
    tenant_id TEXT NOT NULL,
    provider  TEXT NOT NULL,
    sealed    TEXT NOT NULL,
    set_at    INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, provider)
) WITHOUT ROWID;

CREATE TABLE sms_messages (
    tenant_id  TEXT NOT NULL,
    provider   TEXT NOT NULL,
    message_id TEXT NOT NULL,
    applied_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, provider, message_id)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE sms_messages;
DROP TABLE sms_secrets;
