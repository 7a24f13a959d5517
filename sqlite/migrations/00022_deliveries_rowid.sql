-- +goose Up
-- The webhook delivery log as a rowid table: its rows, each with its payload, are appended in
-- the order they are written, and a small unique index on (endpoint_id, event_id) stands for
-- the primary key. As a table clustered on (endpoint_id, event_id), event ids being hashes,
-- every delivery written went to a random page of the log and split it often: a quarter of
-- the bytes an accepted submission wrote. This creates the new table; the rows move over in
-- chunks at start (sqlite/tablemove.go: resumable, with progress), which then drops the old
-- table, gives the new one its name and builds its indexes, in one transaction.
CREATE TABLE IF NOT EXISTS webhook_deliveries_r (
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
    last_result TEXT NOT NULL DEFAULT ''
);

-- +goose Down
-- One way: the rowid table serves an older version as it is (its unique index does what the
-- primary key did).
SELECT 1;
