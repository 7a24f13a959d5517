-- +goose Up
-- The due deliveries' index names the endpoint too: the dispatcher reads the due deliveries
-- leaving out those of endpoints that can take no more (their attempts all in flight, their
-- queue full), and with the endpoint in the index those are passed over in the index alone,
-- without reading their rows and payloads. Only pending deliveries are in it, so it is small.
-- Should the move of 00022 not be finished, this is the old table's index, and the move's last
-- step builds the new table's as here (sqlite/tablemove.go).
DROP INDEX IF EXISTS webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at, endpoint_id) WHERE status = 'pending';

-- +goose Down
DROP INDEX IF EXISTS webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE status = 'pending';
