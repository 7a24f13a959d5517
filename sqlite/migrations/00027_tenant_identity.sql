-- The organisation's identity (docs/API.md §17): legal name, data-protection contact, postal
-- address, privacy notice and jurisdiction, shown on the person's pages and in the receipts;
-- a JSON object, '' for none.

-- +goose Up
ALTER TABLE tenants ADD COLUMN identity TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tenants DROP COLUMN identity;
