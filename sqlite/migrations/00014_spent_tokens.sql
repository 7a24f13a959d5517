-- The confirmation links that were used (double opt-in): a link is single-use on every
-- instance. Only a hash of the token is kept; expires_at says when the row may be pruned.

-- +goose Up
CREATE TABLE spent_tokens (
    tenant_id  TEXT NOT NULL,
    token_id   TEXT NOT NULL,
    spent_at   INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, token_id)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE spent_tokens;
