-- Facts about the store as a whole, such as the version its records' match keys were derived by
-- (re-keyed at start when it is older than the code's).

-- +goose Up
CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- +goose Down
DROP TABLE store_meta;
