-- Data-subject requests filed on the person's preference page (docs/API.md §17.3); doc is
-- the request as JSON, naming the person by the keyed hash only. open_key is the person and
-- kind while the request is open, its own id once done: the unique index keeps one open
-- request per person and kind.

-- +goose Up
CREATE TABLE IF NOT EXISTS subject_requests (
    id        TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    subject   TEXT NOT NULL,
    record_id TEXT NOT NULL,
    status    TEXT NOT NULL,
    open_key  TEXT NOT NULL,
    filed_at  INTEGER NOT NULL,
    doc       TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS subject_requests_open ON subject_requests (tenant_id, open_key);
CREATE INDEX IF NOT EXISTS subject_requests_tenant ON subject_requests (tenant_id, filed_at);
CREATE INDEX IF NOT EXISTS subject_requests_subject ON subject_requests (tenant_id, subject);
CREATE INDEX IF NOT EXISTS subject_requests_record ON subject_requests (tenant_id, record_id);

-- +goose Down
DROP TABLE IF EXISTS subject_requests;
