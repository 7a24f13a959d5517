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

-- Inbound webhook diagnostics per tenant and provider (docs/API.md §8.4): the last delivery and
-- the last refusal (its reason only), and counts per day, 30 days kept. Times are Unix ms.
CREATE TABLE IF NOT EXISTS webhook_diag (
    tenant_id        TEXT NOT NULL,
    provider         TEXT NOT NULL,
    last_delivery_at INTEGER NOT NULL DEFAULT 0,
    last_events      INTEGER NOT NULL DEFAULT 0,
    last_unsubscribed INTEGER NOT NULL DEFAULT 0,
    last_refusal_at  INTEGER NOT NULL DEFAULT 0,
    last_reason      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tenant_id, provider)
);
CREATE TABLE IF NOT EXISTS webhook_days (
    tenant_id TEXT NOT NULL,
    provider  TEXT NOT NULL,
    day       TEXT NOT NULL,
    accepted  INTEGER NOT NULL DEFAULT 0,
    refused   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, provider, day)
);

-- +goose Down
DROP TABLE webhook_days;
DROP TABLE webhook_diag;
DROP TABLE audit_verifications;
DROP INDEX audit_chain;
ALTER TABLE audit DROP COLUMN hash;
ALTER TABLE audit DROP COLUMN prev;
ALTER TABLE audit DROP COLUMN chain;
