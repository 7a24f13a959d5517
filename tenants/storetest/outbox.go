package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var outboxTests = map[string]func(t *testing.T, open Open){
	"endpoints":                             testEndpoints,
	"ingestion writes its events once":      testOutboxIngest,
	"changes write their events":            testOutboxChanges,
	"expiry writes its events once":         testOutboxExpiry,
	"only events a live endpoint wants":     testOutboxWanted,
	"fan-out, due deliveries and their log": testOutboxDeliveries,
	"concurrent delivery outcomes":          testOutboxConcurrentUpdates,
}

func endpoint(tenant, id string, events ...string) tenants.Endpoint {
	return tenants.Endpoint{ID: id, TenantID: tenant, URL: "https://crm.example.org/" + id, Events: events,
		Secret: "whsec_c2VjcmV0", CreatedAt: t0}
}

func testEndpoints(t *testing.T, open Open) {
	s := open(t)
	must(t, s.Outbox.InsertEndpoint(ctx, endpoint("a", "e1", tenants.EventTypeConsentRevoked)))
	must(t, s.Outbox.InsertEndpoint(ctx, endpoint("a", "e2", tenants.EventTypeConsentGranted, tenants.EventTypeConsentRevoked)))
	must(t, s.Outbox.InsertEndpoint(ctx, endpoint("b", "e3", tenants.EventTypeConsentRevoked)))
	if err := s.Outbox.InsertEndpoint(ctx, endpoint("a", "e1")); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("duplicate id = %v, want ErrConflict", err)
	}
	list, err := s.Outbox.Endpoints(ctx, "a")
	if err != nil || len(list) != 2 || list[0].ID != "e1" || list[1].ID != "e2" || len(list[1].Events) != 2 {
		t.Fatalf("Endpoints(a) = %+v, %v", list, err)
	}
	if _, err := s.Outbox.Endpoint(ctx, "b", "e1"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("another tenant's endpoint = %v, want ErrNotFound", err)
	}
	failing := t0.Add(time.Hour)
	must(t, s.Outbox.SetFailing(ctx, "a", "e1", &failing))
	got, err := s.Outbox.Endpoint(ctx, "a", "e1")
	if err != nil || got.FailingSince == nil || !got.FailingSince.Equal(failing) || got.Secret != "whsec_c2VjcmV0" {
		t.Errorf("after SetFailing: %+v, %v", got, err)
	}
	must(t, s.Outbox.SetFailing(ctx, "a", "e1", nil))
	if got, _ := s.Outbox.Endpoint(ctx, "a", "e1"); got.FailingSince != nil {
		t.Errorf("SetFailing(nil) left %v", got.FailingSince)
	}
	if err := s.Outbox.DeleteEndpoint(ctx, "b", "e1"); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("deleting another tenant's endpoint = %v, want ErrNotFound", err)
	}
	must(t, s.Outbox.DeleteEndpoint(ctx, "a", "e1"))
	if list, _ := s.Outbox.Endpoints(ctx, "a"); len(list) != 1 {
		t.Errorf("after delete: %+v", list)
	}
}

// subscribe registers an endpoint of the tenant for every event type: the outbox keeps only
// the events that some live endpoint wants.
func subscribe(t *testing.T, s tenants.Stores, tenant string) {
	t.Helper()
	must(t, s.Outbox.InsertEndpoint(ctx, endpoint(tenant, "sub-"+tenant, tenants.EventTypes...)))
}

func testOutboxWanted(t *testing.T, open Open) {
	s := open(t)
	failing := t0
	must(t, s.Outbox.InsertEndpoint(ctx, endpoint("a", "e1", tenants.EventTypeConsentRevoked)))
	disabled := endpoint("a", "e2", tenants.EventTypeConsentGranted)
	disabled.FailingSince = &failing
	must(t, s.Outbox.InsertEndpoint(ctx, disabled))
	must(t, s.Outbox.InsertEndpoint(ctx, endpoint("b", "e3", tenants.EventTypeConsentGranted)))
	for i, tenant := range []string{"a", "b", "c"} {
		r := record(tenant, tenants.KindFormSubmission, "f1", i+1)
		_, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{accepted(r)},
			Events: []tenants.OutboxEvent{outboxEvent(tenant, "g-"+tenant, tenants.EventTypeConsentGranted, i+1)}})
		must(t, err)
	}
	// a: its only granted endpoint is disabled; b: wanted; c: no endpoint at all.
	if got := unfanned(t, s); got != "[g-b]" {
		t.Errorf("outbox = %s, want only the event an endpoint wants", got)
	}
}

func outboxEvent(tenant, id, typ string, offset int) tenants.OutboxEvent {
	return tenants.OutboxEvent{ID: id, TenantID: tenant, Type: typ, Time: t0.Add(sec(offset)), Payload: `{"id":"` + id + `"}`}
}

func unfanned(t *testing.T, s tenants.Stores) string {
	t.Helper()
	evs, err := s.Outbox.Unfanned(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return fmt.Sprint(out)
}

func testOutboxIngest(t *testing.T, open Open) {
	s := open(t)
	subscribe(t, s, "a")
	r := record("a", tenants.KindFormSubmission, "f1", 1)
	in := tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{accepted(r)},
		Events: []tenants.OutboxEvent{outboxEvent("a", "m1", tenants.EventTypeConsentGranted, 1)}}
	for range 2 {
		if _, err := s.Writer.Ingest(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if got := unfanned(t, s); got != "[m1]" {
		t.Errorf("outbox = %s, want [m1] once", got)
	}
	evs, _ := s.Outbox.Unfanned(ctx, 10)
	if e := evs[0]; e.TenantID != "a" || e.Type != tenants.EventTypeConsentGranted || !e.Time.Equal(t0.Add(sec(1))) || e.Payload != `{"id":"m1"}` {
		t.Errorf("event = %+v", e)
	}
}

func testOutboxChanges(t *testing.T, open Open) {
	s := open(t)
	subscribe(t, s, "a")
	person(t, s)
	events := func(prefix, typ string) func([]tenants.Record) []tenants.OutboxEvent {
		return func(recs []tenants.Record) []tenants.OutboxEvent {
			out := make([]tenants.OutboxEvent, len(recs))
			for i, r := range recs {
				out[i] = outboxEvent("a", prefix+r.PublicID, typ, 5)
			}
			return out
		}
	}
	kinds := []tenants.Kind{tenants.KindFormSubmission}
	_, err := s.Writer.Revoke(ctx, tenants.Change{TenantID: "a", MatchKeys: []string{"ke"}, Kinds: kinds, Apply: revokeEmail,
		Audit: auditAs("a", tenants.ActionConsentRevoked), Events: events("r-", tenants.EventTypeConsentRevoked)})
	must(t, err)
	_, err = s.Writer.Erase(ctx, tenants.Change{TenantID: "a", MatchKeys: []string{"kp"}, Apply: strip,
		Audit: auditAs("a", tenants.ActionGDPRAnonymised), Events: events("x-", tenants.EventTypeRecordAnonymised)})
	must(t, err)
	evs, err := s.Outbox.Unfanned(ctx, 100)
	must(t, err)
	got := map[string]bool{}
	for _, e := range evs {
		got[e.ID] = true
	}
	for _, id := range []string{"r-f1", "r-f2", "x-f1", "x-d1", "x-p1"} {
		if !got[id] {
			t.Errorf("event %s missing from %v", id, got)
		}
	}
}

func testOutboxDeliveries(t *testing.T, open Open) {
	s := open(t)
	subscribe(t, s, "a")
	ingestGranted(t, s, "f1", "m1", 1)
	ingestGranted(t, s, "f2", "m2", 2)
	if got := unfanned(t, s); got != "[m1 m2]" {
		t.Fatalf("unfanned = %s, want oldest first", got)
	}
	evs, _ := s.Outbox.Unfanned(ctx, 1)
	d := func(ep string, ev tenants.OutboxEvent) tenants.Delivery {
		return tenants.Delivery{EndpointID: ep, EventID: ev.ID, TenantID: "a", Type: ev.Type, Payload: ev.Payload,
			CreatedAt: ev.Time, Status: tenants.DeliveryPending, NextAt: ev.Time}
	}
	fan := []tenants.Fanned{{Event: evs[0], Deliveries: []tenants.Delivery{d("e1", evs[0]), d("e2", evs[0])}}}
	must(t, s.Outbox.Fan(ctx, fan))
	must(t, s.Outbox.Fan(ctx, fan)) // a repeat writes nothing twice
	if got := unfanned(t, s); got != "[m2]" {
		t.Errorf("after Fan: unfanned = %s", got)
	}
	if due, err := s.Outbox.Due(ctx, t0, 10); err != nil || len(due) != 0 {
		t.Errorf("Due before their time = %+v, %v", due, err)
	}
	due, err := s.Outbox.Due(ctx, t0.Add(sec(1)), 10)
	if err != nil || len(due) != 2 || due[0].Payload != `{"id":"m1"}` {
		t.Fatalf("Due = %+v, %v; want both deliveries of m1", due, err)
	}
	last := t0.Add(sec(3))
	retry := due[0]
	retry.Attempts, retry.NextAt, retry.LastAt, retry.LastResult = 1, t0.Add(time.Minute), &last, "503"
	must(t, s.Outbox.Update(ctx, retry))
	done := due[1]
	done.Status, done.Attempts, done.LastAt, done.LastResult = tenants.DeliveryDelivered, 1, &last, "200"
	must(t, s.Outbox.Update(ctx, done))
	if due, _ := s.Outbox.Due(ctx, t0.Add(sec(30)), 10); len(due) != 0 {
		t.Errorf("Due during the backoff = %+v", due)
	}
	if due, _ := s.Outbox.Due(ctx, t0.Add(time.Minute), 10); len(due) != 1 || due[0].EndpointID != retry.EndpointID {
		t.Errorf("Due after the backoff = %+v", due)
	}
	log, err := s.Outbox.Deliveries(ctx, "a", retry.EndpointID, 10)
	if err != nil || len(log) != 1 || log[0].Attempts != 1 || log[0].LastResult != "503" || log[0].LastAt == nil || !log[0].LastAt.Equal(last) {
		t.Errorf("delivery log = %+v, %v", log, err)
	}
	if log, _ := s.Outbox.Deliveries(ctx, "b", retry.EndpointID, 10); len(log) != 0 {
		t.Errorf("another tenant reads the log: %+v", log)
	}
	// Pruning drops what is delivered or failed before the cut, never a pending delivery.
	if n, err := s.Outbox.PruneDeliveries(ctx, t0.Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("PruneDeliveries = %d, %v; want the delivered one", n, err)
	}
	if log, _ := s.Outbox.Deliveries(ctx, "a", retry.EndpointID, 10); len(log) != 1 {
		t.Errorf("the pending delivery was pruned: %+v", log)
	}
}

func testOutboxExpiry(t *testing.T, open Open) {
	s := open(t)
	subscribe(t, s, "a")
	soon := t0.Add(time.Minute)
	r := record("a", tenants.KindFormSubmission, "f1", 1)
	r.Consents.PrimaryPurpose = granted(&soon)
	ingest(t, s, r)
	now := t0.Add(time.Hour)
	run := tenants.ExpiryRun{Now: now, Limit: 10, Audit: expiryAudit(now),
		Events: func(rec tenants.Record, consents []string) []tenants.OutboxEvent {
			out := make([]tenants.OutboxEvent, len(consents))
			for i, name := range consents {
				out[i] = outboxEvent(rec.TenantID, "exp-"+rec.PublicID+"-"+name, tenants.EventTypeConsentExpired, 3600)
			}
			return out
		}}
	if n, err := s.Writer.Expire(ctx, run); err != nil || n != 1 {
		t.Fatalf("Expire = %d, %v", n, err)
	}
	if n, err := s.Writer.Expire(ctx, run); err != nil || n != 0 {
		t.Fatalf("second run = %d, %v", n, err)
	}
	if got := unfanned(t, s); got != "[exp-f1-primaryPurpose]" {
		t.Errorf("outbox = %s, want the expiry's event once", got)
	}
}

// testOutboxConcurrentUpdates stores the outcomes of many attempts arriving at once (a store
// may write them together): each is stored as its own, and the outcome of a delivery that
// does not exist is ErrNotFound for that one alone.
func testOutboxConcurrentUpdates(t *testing.T, open Open) {
	s := open(t)
	subscribe(t, s, "a")
	ingestGranted(t, s, "f1", "m1", 1)
	evs, err := s.Outbox.Unfanned(ctx, 1)
	if err != nil || len(evs) != 1 {
		t.Fatalf("Unfanned = %+v, %v", evs, err)
	}
	const n = 40
	fan := tenants.Fanned{Event: evs[0]}
	for i := range n {
		fan.Deliveries = append(fan.Deliveries, tenants.Delivery{EndpointID: fmt.Sprintf("e%02d", i), EventID: evs[0].ID, TenantID: "a",
			Type: evs[0].Type, Payload: evs[0].Payload, CreatedAt: evs[0].Time, Status: tenants.DeliveryPending, NextAt: evs[0].Time})
	}
	must(t, s.Outbox.Fan(ctx, []tenants.Fanned{fan}))
	last := t0.Add(sec(3))
	errs := make([]error, n+1)
	var wg sync.WaitGroup
	for i := range n + 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := tenants.Delivery{EndpointID: fmt.Sprintf("e%02d", i), EventID: evs[0].ID, TenantID: "a", Status: tenants.DeliveryDelivered,
				Attempts: 1, NextAt: last, LastAt: &last, LastResult: fmt.Sprint(200 + i)}
			if i == n {
				d.EventID = "no-such-event"
			}
			errs[i] = s.Outbox.Update(ctx, d)
		}()
	}
	wg.Wait()
	for i, err := range errs[:n] {
		if err != nil {
			t.Errorf("Update of e%02d = %v", i, err)
		}
	}
	if !errors.Is(errs[n], tenants.ErrNotFound) {
		t.Errorf("Update of a missing delivery = %v, want ErrNotFound", errs[n])
	}
	for i := range n {
		log, err := s.Outbox.Deliveries(ctx, "a", fmt.Sprintf("e%02d", i), 10)
		if err != nil || len(log) != 1 || log[0].Status != tenants.DeliveryDelivered || log[0].LastResult != fmt.Sprint(200+i) {
			t.Errorf("delivery log of e%02d = %+v, %v", i, log, err)
		}
	}
	if due, _ := s.Outbox.Due(ctx, t0.Add(time.Hour), 100); len(due) != 0 {
		t.Errorf("Due after every delivery was delivered = %+v", due)
	}
}

// ingestGranted stores tenant a's form submission publicID (n: its time and content) with
// its consent.granted event eventID.
func ingestGranted(t *testing.T, s tenants.Stores, publicID, eventID string, n int) {
	t.Helper()
	r := record("a", tenants.KindFormSubmission, publicID, n)
	_, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: r, Audit: []tenants.AuditEntry{accepted(r)},
		Events: []tenants.OutboxEvent{outboxEvent("a", eventID, tenants.EventTypeConsentGranted, n)}})
	must(t, err)
}
