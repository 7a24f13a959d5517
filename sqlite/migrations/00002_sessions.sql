-- Staff sessions recorded in the store (sign-out, disabling a user and a password change end
-- them on every instance), and the staff columns that go with them. A column cannot be added
-- IF NOT EXISTS: when two processes apply this at once, the second fails and migrate retries,
-- finding it applied.

-- +goose Up
ALTER TABLE staff ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE staff ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0;

CREATE TABLE IF NOT EXISTS sessions (
    id         TEXT PRIMARY KEY,
    staff_id   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_staff ON sessions (staff_id);
CREATE INDEX IF NOT EXISTS sessions_expires ON sessions (expires_at);

-- +goose Down
DROP TABLE sessions;
ALTER TABLE staff DROP COLUMN must_change_password;
ALTER TABLE staff DROP COLUMN disabled;
