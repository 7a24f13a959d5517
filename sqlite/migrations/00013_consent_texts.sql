-- The published versions of the notices forms show beside their consents. A version is never
-- updated or deleted (no personal data: erasure leaves them); a form's versions are read in
-- publication order.

-- +goose Up
CREATE TABLE consent_texts (
	id           TEXT PRIMARY KEY,
	tenant_id    TEXT NOT NULL,
	form_id      TEXT NOT NULL,
	consent      TEXT NOT NULL,
	language     TEXT NOT NULL,
	text         TEXT NOT NULL,
	hash         TEXT NOT NULL,
	published_at INTEGER NOT NULL
);
CREATE INDEX consent_texts_form ON consent_texts (tenant_id, form_id, published_at, id);

-- +goose Down
DROP TABLE consent_texts;
