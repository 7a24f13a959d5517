-- Web forms in the browser: a publishable key's flag, forms and allowed origins (JSON arrays),
-- a form's consent deadlines for its hosted page, and the spam challenges whose solutions were
-- accepted, kept until they expire so that none is accepted twice.

-- +goose Up
ALTER TABLE api_keys ADD COLUMN publishable INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN forms TEXT NOT NULL DEFAULT '[]';
ALTER TABLE api_keys ADD COLUMN origins TEXT NOT NULL DEFAULT '[]';
ALTER TABLE forms ADD COLUMN primary_for TEXT NOT NULL DEFAULT '';
ALTER TABLE forms ADD COLUMN contact_for TEXT NOT NULL DEFAULT '';
CREATE TABLE IF NOT EXISTS spent_challenges (
    tenant_id  TEXT NOT NULL,
    challenge  TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, challenge)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS spent_challenges_expiry ON spent_challenges (tenant_id, expires_at);

-- +goose Down
DROP TABLE spent_challenges;
ALTER TABLE forms DROP COLUMN contact_for;
ALTER TABLE forms DROP COLUMN primary_for;
ALTER TABLE api_keys DROP COLUMN origins;
ALTER TABLE api_keys DROP COLUMN forms;
ALTER TABLE api_keys DROP COLUMN publishable;
