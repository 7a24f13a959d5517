-- +goose Up
-- Match keys as 16 bytes (the first half of the keyed hash; the hash mixes in the tenant, so
-- the tenant is no longer part of the key): half the index a person is found through, and one
-- column less per entry. This creates the new table; the rows move over in chunks at start
-- (sqlite/matchkeys.go: resumable, with progress), which then drops the old table and gives the
-- new one its name.
CREATE TABLE IF NOT EXISTS match_keys_b (
    key BLOB    NOT NULL,
    rid INTEGER NOT NULL REFERENCES records (rid),
    PRIMARY KEY (key, rid)
) WITHOUT ROWID;

-- +goose Down
-- One way: the moved keys cannot be turned back into the text form.
SELECT 1;
