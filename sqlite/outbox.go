package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// Outbox holds the outgoing webhook endpoints, the outbox and the deliveries. The writer
// fills the outbox in the transaction of each change (insertOutbox).
type Outbox struct{ s *Store }

var _ tenants.OutboxRepo = (*Outbox)(nil)

// insertOutbox creates, in tx, the deliveries of events to their tenants' endpoints (fanOut),
// one statement each (a change has few events; the writer's batches insert theirs in
// multi-row statements).
func insertOutbox(ctx context.Context, tx cachedQuerier, events []tenants.OutboxEvent) error {
	ds, err := fanOut(ctx, tx, events)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if err := execDelivery(ctx, tx, d); err != nil {
			return err
		}
	}
	return nil
}

// fanOut returns the deliveries of events to their tenants' endpoints
// (OutboxEvent.DeliveriesTo), reading each tenant's endpoints once in q: the fan-out happens in
// the change's transaction, so no outbox row is written, read back, fanned out and deleted in
// a transaction of its own. The outbox table holds only what an older version left there; the
// dispatcher fans that out as before.
func fanOut(ctx context.Context, q cachedQuerier, events []tenants.OutboxEvent) ([]tenants.Delivery, error) {
	var out []tenants.Delivery
	byTenant := map[string][]tenants.Endpoint{}
	for _, ev := range events {
		eps, ok := byTenant[ev.TenantID]
		if !ok {
			var err error
			if eps, err = queryAll(ctx, q, "list webhook endpoints", scanEndpoint, listEndpoints, ev.TenantID); err != nil {
				return nil, err
			}
			byTenant[ev.TenantID] = eps
		}
		out = append(out, ev.DeliveriesTo(eps)...)
	}
	return out, nil
}

// execDelivery inserts d unless its endpoint has it.
func execDelivery(ctx context.Context, q cachedQuerier, d tenants.Delivery) error {
	_, err := q.ExecContext(ctx, insertDelivery, deliveryRow(d)...)
	return translate("insert webhook delivery", err)
}

// deliveryRow is d's values in the order of deliveryCols.
func deliveryRow(d tenants.Delivery) []any {
	return []any{d.TenantID, d.EndpointID, d.EventID, d.Type, d.Payload, ms(d.CreatedAt), d.Status, d.Attempts, ms(d.NextAt), msPtr(d.LastAt), d.LastResult}
}

// ingestionEvents returns the events of the ingestions that stored their record.
func ingestionEvents(jobs []*ingestJob) []tenants.OutboxEvent {
	var out []tenants.OutboxEvent
	for _, j := range jobs {
		if j.stored {
			out = append(out, j.in.Events...)
		}
	}
	return out
}

const endpointCols = `id, tenant_id, url, events, secret, created_at, failing_since`

// listEndpoints is the query of a tenant's endpoints (insertOutbox).
const listEndpoints = `SELECT ` + endpointCols + ` FROM webhook_endpoints WHERE tenant_id = ?`

// InsertEndpoint stores a new endpoint.
func (r *Outbox) InsertEndpoint(ctx context.Context, e tenants.Endpoint) error {
	events, err := json.Marshal(e.Events)
	if err != nil {
		return err
	}
	_, err = r.s.w.ExecContext(ctx, `INSERT INTO webhook_endpoints (`+endpointCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.TenantID, e.URL, string(events), e.Secret, ms(e.CreatedAt), msPtr(e.FailingSince))
	return translate("insert webhook endpoint", err)
}

// Endpoint returns the tenant's endpoint with id.
func (r *Outbox) Endpoint(ctx context.Context, tenantID, id string) (tenants.Endpoint, error) {
	e, err := scanEndpoint(cachedQuerier{cache: r.s.rq}.QueryRowContext(ctx, `SELECT `+endpointCols+` FROM webhook_endpoints WHERE tenant_id = ? AND id = ?`, tenantID, id))
	return e, translate("get webhook endpoint", err)
}

// Endpoints returns the tenant's endpoints, oldest first.
func (r *Outbox) Endpoints(ctx context.Context, tenantID string) ([]tenants.Endpoint, error) {
	return queryAll(ctx, r.s.r, "list webhook endpoints", scanEndpoint,
		`SELECT `+endpointCols+` FROM webhook_endpoints WHERE tenant_id = ? ORDER BY created_at, id`, tenantID)
}

// DeleteEndpoint removes the endpoint and its delivery log.
func (r *Outbox) DeleteEndpoint(ctx context.Context, tenantID, id string) error {
	return r.s.Writer.inTx(ctx, func(tx *sql.Tx, _ statements) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_endpoints WHERE tenant_id = ? AND id = ?`, tenantID, id)
		if err != nil {
			return translate("delete webhook endpoint", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return tenants.ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE tenant_id = ? AND endpoint_id = ?`, tenantID, id)
		return translate("delete webhook deliveries", err)
	})
}

// SetFailing implements tenants.OutboxRepo.
func (r *Outbox) SetFailing(ctx context.Context, tenantID, id string, since *time.Time) error {
	return execOne(ctx, r.s.w, "set webhook endpoint failing", `UPDATE webhook_endpoints SET failing_since = ? WHERE tenant_id = ? AND id = ?`,
		msPtr(since), tenantID, id)
}

// Unfanned implements tenants.OutboxRepo.
func (r *Outbox) Unfanned(ctx context.Context, limit int) ([]tenants.OutboxEvent, error) {
	return queryAll(ctx, r.s.r, "unfanned events", func(row scanner) (tenants.OutboxEvent, error) {
		var e tenants.OutboxEvent
		var t int64
		err := row.Scan(&e.ID, &e.TenantID, &e.Type, &t, &e.Payload)
		e.Time = fromMS(t)
		return e, err
	}, `SELECT id, tenant_id, type, time, payload FROM webhook_outbox ORDER BY seq LIMIT ?`, limit)
}

// Fan implements tenants.OutboxRepo, in one transaction; its two statements are prepared
// once (stmtcache.go), not parsed for every delivery and event.
func (r *Outbox) Fan(ctx context.Context, fanned []tenants.Fanned) error {
	return r.s.Writer.inTx(ctx, func(_ *sql.Tx, st statements) error {
		for _, f := range fanned {
			for _, d := range f.Deliveries {
				if err := execDelivery(ctx, st.q, d); err != nil {
					return err
				}
			}
			if _, err := st.q.ExecContext(ctx, `DELETE FROM webhook_outbox WHERE id = ?`, f.Event.ID); err != nil {
				return translate("remove fanned event", err)
			}
		}
		return nil
	})
}

// insertDelivery inserts one delivery, insertDeliveriesHead with deliveriesTail many; one that
// exists is kept.
const (
	insertDeliveriesHead = `INSERT INTO webhook_deliveries (` + deliveryCols + `) VALUES `
	deliveriesTail       = ` ON CONFLICT DO NOTHING`
	insertDelivery       = insertDeliveriesHead + `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)` + deliveriesTail
)

const deliveryCols = `tenant_id, endpoint_id, event_id, type, payload, created_at, status, attempts, next_at, last_at, last_result`

// dueDeliveries reads the due deliveries, skipping the endpoints of a JSON array. The skipped
// ones are passed over in the index (next_at, endpoint_id), their rows never read.
const dueDeliveries = `SELECT ` + deliveryCols + ` FROM webhook_deliveries WHERE status = 'pending' AND next_at <= ?
	AND endpoint_id NOT IN (SELECT value FROM json_each(?)) ORDER BY next_at LIMIT ?`

// Due implements tenants.OutboxRepo.
func (r *Outbox) Due(ctx context.Context, now time.Time, limit int, skip []string) ([]tenants.Delivery, error) {
	ids := []byte("[]") // never null: NOT IN a set holding NULL is true of no row
	if len(skip) > 0 {
		var err error
		if ids, err = json.Marshal(skip); err != nil {
			return nil, err
		}
	}
	return queryAll(ctx, cachedQuerier{cache: r.s.rq}, "due deliveries", scanDelivery, dueDeliveries, ms(now), string(ids), limit)
}

// Update implements tenants.OutboxRepo. Outcomes arrive one per attempt, from many attempts
// at once: they are written in batches, one transaction a batch (updateDeliveries), not one
// transaction an outcome, which took the writing connection from intake once per delivery.
func (r *Outbox) Update(ctx context.Context, d tenants.Delivery) error {
	j := &deliveryUpdate{d: d}
	if err := r.s.Writer.deliveries.Do(ctx, j); err != nil {
		return err
	}
	return j.err
}

// deliveryUpdate is an Update waiting for its batch, and its outcome.
type deliveryUpdate struct {
	d   tenants.Delivery
	err error
}

// updateDelivery finds the delivery by its key in webhook_deliveries_endpoint.
const updateDelivery = `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_at = ?,
	last_at = ?, last_result = ? WHERE tenant_id = ? AND endpoint_id = ? AND created_at = ? AND event_id = ?`

// updateDeliveries writes a batch of Updates in one transaction. It commits without waiting
// for the disk (durable.go), and is answered at once: outcomes need not be durable before the
// dispatcher goes on, since one lost in a crash only means its delivery is sent again, and
// the writing connection does not wait for an fsync of its own. Should the transaction fail,
// each Update is written in a transaction of its own, so that an error reaches only the update
// it belongs to.
func (w *Writer) updateDeliveries(jobs []*deliveryUpdate) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	defer w.st.cache.prepareWanted(ctx) // after the connection is released (deferred before it)
	err := w.unsynced(ctx, func(conn *sql.Conn) error {
		err := w.updateTx(ctx, conn, jobs)
		if err != nil && len(jobs) > 1 {
			for _, j := range jobs {
				j.err = w.updateTx(ctx, conn, []*deliveryUpdate{j})
			}
			return nil
		}
		return err
	})
	for _, j := range jobs {
		if j.err == nil {
			j.err = err
		}
	}
}

// updateTx writes jobs in one transaction on conn; a job whose delivery is not there gets
// ErrNotFound, and the transaction is rolled back.
func (w *Writer) updateTx(ctx context.Context, conn *sql.Conn, jobs []*deliveryUpdate) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return translate("begin", err)
	}
	st := w.st.in(ctx, tx)
	for _, j := range jobs {
		d := j.d
		res, err := st.q.ExecContext(ctx, updateDelivery, d.Status, d.Attempts, ms(d.NextAt), msPtr(d.LastAt), d.LastResult,
			d.TenantID, d.EndpointID, ms(d.CreatedAt), d.EventID)
		if j.err = changedOne(res, err, "update webhook delivery"); j.err != nil {
			_ = tx.Rollback()
			return j.err
		}
	}
	return translate("commit", tx.Commit())
}

// Deliveries implements tenants.OutboxRepo.
func (r *Outbox) Deliveries(ctx context.Context, tenantID, endpointID string, limit int) ([]tenants.Delivery, error) {
	return queryAll(ctx, r.s.r, "list webhook deliveries", scanDelivery, deliveryLog, tenantID, endpointID, limit)
}

// deliveryLog is an endpoint's deliveries, newest first, read in webhook_deliveries_endpoint.
const deliveryLog = `SELECT ` + deliveryCols + ` FROM webhook_deliveries WHERE tenant_id = ? AND endpoint_id = ?
	ORDER BY created_at DESC, event_id DESC LIMIT ?`

func scanEndpoint(row scanner) (tenants.Endpoint, error) {
	var e tenants.Endpoint
	var events string
	var created int64
	var failing sql.NullInt64
	if err := row.Scan(&e.ID, &e.TenantID, &e.URL, &events, &e.Secret, &created, &failing); err != nil {
		return e, err
	}
	e.CreatedAt, e.FailingSince = fromMS(created), fromNullMS(failing)
	return e, json.Unmarshal([]byte(events), &e.Events)
}

func scanDelivery(row scanner) (tenants.Delivery, error) {
	var d tenants.Delivery
	var created, next int64
	var last sql.NullInt64
	err := row.Scan(&d.TenantID, &d.EndpointID, &d.EventID, &d.Type, &d.Payload, &created, &d.Status, &d.Attempts, &next, &last, &d.LastResult)
	d.CreatedAt, d.NextAt, d.LastAt = fromMS(created), fromMS(next), fromNullMS(last)
	return d, err
}

// PruneDeliveries implements tenants.OutboxRepo.
func (r *Outbox) PruneDeliveries(ctx context.Context, before time.Time) (int64, error) {
	res, err := r.s.w.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE created_at < ? AND status != 'pending'`, ms(before))
	if err != nil {
		return 0, translate("prune webhook deliveries", err)
	}
	return res.RowsAffected()
}
