-- +goose Up
-- One index of the delivery log where there were two: (tenant_id, endpoint_id, created_at,
-- event_id), unique. It lists an endpoint's deliveries newest first, finds the delivery an
-- attempt's outcome updates, and keeps a delivery from being written twice (a delivery's
-- creation time is its event's time, the same however often the event is fanned out). It
-- replaces the unique index on (endpoint_id, event_id), whose event ids are hashes: each
-- delivery written went to a random page of it, a fifth of the pages an accepted submission
-- wrote; in this one a delivery goes after its endpoint's last. Should the move of 00022 not be
-- finished, this is the old table's index, and the move's last step builds the new table's
-- as here (sqlite/tablemove.go).
DROP INDEX IF EXISTS webhook_deliveries_key;
DROP INDEX IF EXISTS webhook_deliveries_log;
CREATE UNIQUE INDEX webhook_deliveries_endpoint ON webhook_deliveries (tenant_id, endpoint_id, created_at, event_id);

-- +goose Down
DROP INDEX IF EXISTS webhook_deliveries_endpoint;
CREATE UNIQUE INDEX webhook_deliveries_key ON webhook_deliveries (endpoint_id, event_id);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (tenant_id, endpoint_id, created_at);
