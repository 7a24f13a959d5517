-- Outgoing consent-change webhooks (docs/WEBHOOKS.md): the tenants' endpoints, the outbox the
-- writer fills in the transaction of each change (an event leaves it when it is fanned out), and
-- one delivery per event and endpoint.
-- Four-eyes bulk erasure requests (docs/API.md §5.6).

-- +goose Up
CREATE TABLE IF NOT EXISTS webhook_endpoints (
    id            TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL,
    url           TEXT NOT NULL,
    events        TEXT NOT NULL, -- JSON array of event types
    secret        TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    failing_since INTEGER
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_tenant ON webhook_endpoints (tenant_id, created_at);

CREATE TABLE IF NOT EXISTS webhook_outbox (
    seq       INTEGER PRIMARY KEY,
    id        TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    type      TEXT NOT NULL,
    time      INTEGER NOT NULL,
    payload   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS webhook_deliveries (
    tenant_id   TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    type        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    status      TEXT NOT NULL,
    attempts    INTEGER NOT NULL,
    next_at     INTEGER NOT NULL,
    last_at     INTEGER,
    last_result TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (endpoint_id, event_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_log ON webhook_deliveries (tenant_id, endpoint_id, created_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_created ON webhook_deliveries (created_at);

-- A bulk erasure request; doc is the request as JSON, match keys (never identifiers) included
-- until it finishes.
CREATE TABLE IF NOT EXISTS bulk_erasures (
    id           TEXT PRIMARY KEY,
    tenant_id    TEXT NOT NULL,
    status       TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    doc          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bulk_erasures_tenant ON bulk_erasures (tenant_id, requested_at);
CREATE INDEX IF NOT EXISTS bulk_erasures_status ON bulk_erasures (status, expires_at);

-- +goose Down
DROP TABLE IF EXISTS bulk_erasures;
DROP TABLE IF EXISTS webhook_deliveries;
DROP TABLE IF EXISTS webhook_outbox;
DROP TABLE IF EXISTS webhook_endpoints;
