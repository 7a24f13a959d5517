-- A tenant's default country (ISO 3166 alpha-2, '' none): the national phone numbers volunteers
-- type into digitisation, canvassing and phone-call records are read in it.

-- +goose Up
ALTER TABLE tenants ADD COLUMN default_country TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tenants DROP COLUMN default_country;
