-- A form's settings for the person it speaks to: its language (hosted, confirmation and
-- withdrawal pages), the channels that ask double opt-in (comma-separated: email,phone) and how
-- long a confirmation link stays valid ('' is seven days).

-- +goose Up
ALTER TABLE forms ADD COLUMN language TEXT NOT NULL DEFAULT '';
ALTER TABLE forms ADD COLUMN double_opt_in TEXT NOT NULL DEFAULT '';
ALTER TABLE forms ADD COLUMN confirm_within TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE forms DROP COLUMN confirm_within;
ALTER TABLE forms DROP COLUMN double_opt_in;
ALTER TABLE forms DROP COLUMN language;
