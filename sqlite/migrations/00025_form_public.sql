-- +goose Up
-- The settings of a form's public ways in (hosted page, no-script fallback, consent source) as
-- one JSON object: settings that no query filters on, so a new one needs no new column.
ALTER TABLE forms ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE forms DROP COLUMN settings;
