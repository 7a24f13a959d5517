-- A Mailchimp webhook token's name (what it is for, as its issuer gave it) and its last use,
-- listed on the admin "Webhook credentials" page and by the CLI.

-- +goose Up
ALTER TABLE webhook_tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_tokens ADD COLUMN last_used_at INTEGER;

-- +goose Down
ALTER TABLE webhook_tokens DROP COLUMN last_used_at;
ALTER TABLE webhook_tokens DROP COLUMN name;
