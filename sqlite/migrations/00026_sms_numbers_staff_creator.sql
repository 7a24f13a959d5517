-- Inbound SMS per tenant (docs/API.md §11) and four-eyes approval (docs/API.md §5.6):
--   - sms_numbers: the numbers each tenant sends from; once a tenant has one, an inbound
--     message applies to it only when sent to one of them;
--   - tenants.sms_stop_words: the tenant's own opt-out words, a JSON array ('' none);
--   - sms_messages is also read by provider and message id alone: a message applies once,
--     whichever tenant's URL it was posted to;
--   - staff.created_by: the staff user who created the account ('' from the command line),
--     which an approval of a bulk erasure follows back to its requester.

-- +goose Up
CREATE TABLE sms_numbers (
    tenant_id TEXT NOT NULL,
    number    TEXT NOT NULL,
    added_at  INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, number)
) WITHOUT ROWID;

ALTER TABLE tenants ADD COLUMN sms_stop_words TEXT NOT NULL DEFAULT '';

CREATE INDEX sms_messages_message ON sms_messages (provider, message_id);

ALTER TABLE staff ADD COLUMN created_by TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE staff DROP COLUMN created_by;
DROP INDEX sms_messages_message;
ALTER TABLE tenants DROP COLUMN sms_stop_words;
DROP TABLE sms_numbers;
