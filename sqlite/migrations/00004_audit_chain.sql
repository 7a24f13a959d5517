-- The audit log's hash chain per tenant (docs/API.md §9.1): each entry's position in its
-- tenant's chain, the hash of the entry before it and its own. Entries written before this
-- migration stay outside the chain (chain NULL). The last verification of each chain is kept
-- for the admin audit page and for the next verification.

-- +goose Up
ALTER TABLE audit ADD COLUMN chain INTEGER;
ALTER TABLE audit ADD COLUMN prev TEXT NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN hash TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX IF NOT EXISTS audit_chain ON audit (tenant_id, chain) WHERE chain IS NOT NULL;

CREATE TABLE IF NOT EXISTS audit_verifications (
    tenant_id   TEXT PRIMARY KEY,
    verified_at INTEGER NOT NULL,
    entries     INTEGER NOT NULL,
    head_chain  INTEGER NOT NULL,
    head_hash   TEXT NOT NULL,
    last_id     TEXT NOT NULL,
    up_to       INTEGER NOT NULL,
    ok          INTEGER NOT NULL,
    broken_id   TEXT NOT NULL
);

-- +goose Down
DROP TABLE audit_verifications;
DROP INDEX audit_chain;
ALTER TABLE audit DROP COLUMN hash;
ALTER TABLE audit DROP COLUMN prev;
ALTER TABLE audit DROP COLUMN chain;
