-- The embedded store's schema. Every statement may run twice (two processes starting on one
-- data dir at once): IF NOT EXISTS throughout. Times are Unix milliseconds, UTC.

-- +goose Up
CREATE TABLE IF NOT EXISTS tenants (
    id                  TEXT PRIMARY KEY,
    name                TEXT NOT NULL,
    status              TEXT NOT NULL,
    rate_limit          INTEGER NOT NULL,
    created_at          INTEGER NOT NULL,
    sendgrid_public_key TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS tenants_created ON tenants (created_at);

CREATE TABLE IF NOT EXISTS api_keys (
    id           TEXT PRIMARY KEY,
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    name         TEXT NOT NULL,
    hash         TEXT NOT NULL,
    scopes       TEXT NOT NULL, -- JSON array
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    revoked_at   INTEGER,
    last_used_at INTEGER
);
CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys (tenant_id, created_at);

CREATE TABLE IF NOT EXISTS forms (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    form_id    TEXT NOT NULL,
    name       TEXT NOT NULL,
    open       INTEGER NOT NULL,
    fields     TEXT NOT NULL, -- JSON array of field definitions
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, form_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS staff (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    role          TEXT NOT NULL,
    tenant_id     TEXT NOT NULL, -- '' for a platform admin
    created_at    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS staff_tenant ON staff (tenant_id, created_at);

CREATE TABLE IF NOT EXISTS webhook_tokens (
    id         TEXT PRIMARY KEY,
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    provider   TEXT NOT NULL,
    hash       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE INDEX IF NOT EXISTS webhook_tokens_tenant ON webhook_tokens (tenant_id, created_at);

-- Records of the four kinds. The columns are what queries filter and sort on; body holds the
-- rest as JSON (contact, address, consents, custom and own fields, match keys).
CREATE TABLE IF NOT EXISTS records (
    rid           INTEGER PRIMARY KEY,
    tenant_id     TEXT NOT NULL,
    kind          TEXT NOT NULL,
    public_id     TEXT NOT NULL,
    form_id       TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    pp_status     TEXT NOT NULL, -- primary purpose consent: stored status and deadline
    pp_deadline   INTEGER,
    ge_status     TEXT NOT NULL, -- general contact by e-mail
    ge_deadline   INTEGER,
    gp_status     TEXT NOT NULL, -- general contact by phone
    gp_deadline   INTEGER,
    next_deadline INTEGER,       -- earliest deadline of a consent stored as granted
    anonymised_at INTEGER,
    body          TEXT NOT NULL,
    UNIQUE (tenant_id, kind, public_id)
);
CREATE INDEX IF NOT EXISTS records_created ON records (tenant_id, kind, created_at);
CREATE INDEX IF NOT EXISTS records_form ON records (tenant_id, kind, form_id, created_at);
CREATE INDEX IF NOT EXISTS records_due ON records (next_deadline) WHERE next_deadline IS NOT NULL;
-- Covers the dashboard's consent counts: one pass over the index, no record read.
CREATE INDEX IF NOT EXISTS records_consents ON records (tenant_id, kind, pp_status, pp_deadline, ge_status, ge_deadline, gp_status, gp_deadline);

-- The keyed hash of every e-mail address and phone number a record holds: how a person's
-- records are found. Erasure deletes a record's rows with its personal data.
CREATE TABLE IF NOT EXISTS match_keys (
    tenant_id TEXT NOT NULL,
    key       TEXT NOT NULL,
    rid       INTEGER NOT NULL REFERENCES records (rid),
    PRIMARY KEY (tenant_id, key, rid)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS audit (
    seq        INTEGER PRIMARY KEY, -- order of append
    id         TEXT NOT NULL UNIQUE,
    time       INTEGER NOT NULL,
    tenant_id  TEXT NOT NULL,
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL,
    record_ids TEXT, -- JSON array
    counts     TEXT, -- JSON object
    subject    TEXT NOT NULL DEFAULT '',
    detail     TEXT NOT NULL DEFAULT '',
    request_id TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS audit_tenant ON audit (tenant_id, time);
CREATE INDEX IF NOT EXISTS audit_tenant_action ON audit (tenant_id, action, time);
CREATE INDEX IF NOT EXISTS audit_tenant_actor ON audit (tenant_id, actor, time);
CREATE INDEX IF NOT EXISTS audit_time ON audit (time);

-- +goose Down
DROP TABLE audit;
DROP TABLE match_keys;
DROP TABLE records;
DROP TABLE webhook_tokens;
DROP TABLE staff;
DROP TABLE forms;
DROP TABLE api_keys;
DROP TABLE tenants;
