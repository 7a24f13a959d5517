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
	must(t, s.Outbox.InsertEndpoint(ctx, endpoint(tenant, "sub-"+tenant, tenants.EventTypes()...)))
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
	if got := waiting(t, s); got != "[g-b]" {
		t.Errorf("waiting = %s, want only the event an endpoint wants", got)
	}
}

func outboxEvent(tenant, id, typ string, offset int) tenants.OutboxEvent {
	return tenants.OutboxEvent{ID: id, TenantID: tenant, Type: typ, Time: t0.Add(sec(offset)), Payload: `{"id":"` + id + `"}`}
}

// fanOut does what the dispatcher does with the outbox: each waiting event's deliveries to
// its tenant's endpoints, written with Fan, until the outbox is empty. A store that fans out
// at write has nothing waiting.
func fanOut(t *testing.T, s tenants.Stores) {
	t.Helper()
	for range 100 {
		evs, err := s.Outbox.Unfanned(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			return
		}
		fanned := make([]tenants.Fanned, len(evs))
		for i, ev := range evs {
			eps, err := s.Outbox.Endpoints(ctx, ev.TenantID)
			if err != nil {
				t.Fatal(err)
			}
			fanned[i] = tenants.Fanned{Event: ev, Deliveries: ev.DeliveriesTo(eps)}
		}
		must(t, s.Outbox.Fan(ctx, fanned))
	}
	t.Fatal("Fan leaves the events in the outbox")
}

// waiting returns the ids of the events with a delivery waiting to be sent (after the
// fan-out), in the order they are due.
func waiting(t *testing.T, s tenants.Stores) string {
	t.Helper()
	fanOut(t, s)
	due, err := s.Outbox.Due(ctx, t0.Add(1000*time.Hour), 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range due {
		if !seen[d.EventID] {
			seen[d.EventID] = true
			out = append(out, d.EventID)
		}
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
	if got := waiting(t, s); got != "[m1]" {
		t.Errorf("waiting = %s, want [m1] once", got)
	}
	due, _ := s.Outbox.Due(ctx, t0.Add(sec(1)), 10, nil)
	if len(due) != 1 {
		t.Fatalf("Due = %+v, want one delivery", due)
	}
	if d := due[0]; d.TenantID != "a" || d.EndpointID != "sub-a" || d.Type != tenants.EventTypeConsentGranted || !d.CreatedAt.Equal(t0.Add(sec(1))) ||
		d.Payload != `{"id":"m1"}` || d.Status != tenants.DeliveryPending || d.Attempts != 0 {
		t.Errorf("delivery = %+v", d)
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
	fanOut(t, s)
	due, err := s.Outbox.Due(ctx, t0.Add(time.Hour), 100, nil)
	must(t, err)
	got := map[string]bool{}
	for _, d := range due {
		got[d.EventID] = true
	}
	for _, id := range []string{"r-f1", "r-f2", "x-f1", "x-d1", "x-p1"} {
		if !got[id] {
			t.Errorf("event %s missing from %v", id, got)
		}
	}
}

func testOutboxDeliveries(t *testing.T, open Open) {
	s := open(t)
	must(t, s.Outbox.InsertEndpoint(ctx, endpoint("a", "e1", tenants.EventTypes()...)))
	must(t, s.Outbox.InsertEndpoint(ctx, endpoint("a", "e2", tenants.EventTypes()...)))
	ingestGranted(t, s, "f1", "m1", 1)
	ingestGranted(t, s, "f2", "m2", 2)
	if got := waiting(t, s); got != "[m1 m2]" {
		t.Fatalf("waiting = %s, want oldest first", got)
	}
	if due, err := s.Outbox.Due(ctx, t0, 10, nil); err != nil || len(due) != 0 {
		t.Errorf("Due before their time = %+v, %v", due, err)
	}
	// Endpoints skipped (the dispatcher's that can take no more) are left out, and the limit
	// counts only the deliveries returned.
	if due, err := s.Outbox.Due(ctx, t0.Add(sec(2)), 1, []string{"e1"}); err != nil || len(due) != 1 || due[0].EndpointID != "e2" || due[0].EventID != "m1" {
		t.Errorf("Due skipping e1, limit 1 = %+v, %v; want e2's delivery of m1", due, err)
	}
	if due, err := s.Outbox.Due(ctx, t0.Add(sec(2)), 10, []string{"e2", "e1"}); err != nil || len(due) != 0 {
		t.Errorf("Due skipping both endpoints = %+v, %v", due, err)
	}
	due, err := s.Outbox.Due(ctx, t0.Add(sec(1)), 10, nil)
	if err != nil || len(due) != 2 || due[0].EventID != "m1" || due[1].EventID != "m1" || due[0].Payload != `{"id":"m1"}` {
		t.Fatalf("Due = %+v, %v; want both deliveries of m1", due, err)
	}
	last := t0.Add(sec(3))
	retry := due[0]
	retry.Attempts, retry.NextAt, retry.LastAt, retry.LastResult = 1, t0.Add(time.Minute), &last, "503"
	must(t, s.Outbox.Update(ctx, retry))
	done := due[1]
	done.Status, done.Attempts, done.LastAt, done.LastResult = tenants.DeliveryDelivered, 1, &last, "200"
	must(t, s.Outbox.Update(ctx, done))
	if due, _ := s.Outbox.Due(ctx, t0.Add(sec(30)), 10, nil); len(due) != 2 || due[0].EventID != "m2" || due[1].EventID != "m2" {
		t.Errorf("Due during m1's backoff = %+v, want m2's deliveries only", due)
	}
	if due, _ := s.Outbox.Due(ctx, t0.Add(time.Minute), 10, nil); len(due) != 3 || due[2].EventID != "m1" || due[2].EndpointID != retry.EndpointID {
		t.Errorf("Due after the backoff = %+v", due)
	}
	m1Log := func(tenant string) []tenants.Delivery {
		log, err := s.Outbox.Deliveries(ctx, tenant, retry.EndpointID, 10)
		must(t, err)
		var out []tenants.Delivery
		for _, d := range log {
			if d.EventID == "m1" {
				out = append(out, d)
			}
		}
		return out
	}
	if log := m1Log("a"); len(log) != 1 || log[0].Attempts != 1 || log[0].LastResult != "503" || log[0].LastAt == nil || !log[0].LastAt.Equal(last) {
		t.Errorf("delivery log = %+v", log)
	}
	if log, _ := s.Outbox.Deliveries(ctx, "b", retry.EndpointID, 10); len(log) != 0 {
		t.Errorf("another tenant reads the log: %+v", log)
	}
	// Pruning drops what is delivered or failed before the cut, never a pending delivery.
	if n, err := s.Outbox.PruneDeliveries(ctx, t0.Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("PruneDeliveries = %d, %v; want the delivered one", n, err)
	}
	if log := m1Log("a"); len(log) != 1 {
		t.Errorf("the pending delivery was pruned: %+v", log)
	}
	// An event fanned out twice (a retry after a lost answer) keeps its first deliveries.
	legacy := outboxEvent("a", "old", tenants.EventTypeConsentGranted, 4)
	fan := []tenants.Fanned{{Event: legacy, Deliveries: legacy.DeliveriesTo([]tenants.Endpoint{endpoint("a", "e1", tenants.EventTypes()...)})}}
	must(t, s.Outbox.Fan(ctx, fan))
	first, _ := s.Outbox.Deliveries(ctx, "a", "e1", 10)
	must(t, s.Outbox.Fan(ctx, fan))
	if again, _ := s.Outbox.Deliveries(ctx, "a", "e1", 10); len(again) != len(first) || len(first) != 3 {
		t.Errorf("e1's log after Fan = %d, after a repeat %d; want 3 both times", len(first), len(again))
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
	if got := waiting(t, s); got != "[exp-f1-primaryPurpose]" {
		t.Errorf("waiting = %s, want the expiry's event once", got)
	}
}

// testOutboxConcurrentUpdates stores the outcomes of many attempts arriving at once (a store
// may write them together): each is stored as its own, also when all of them can be stored
// and when the outcome of a delivery that does not exist is among them, which is ErrNotFound
// for that one alone.
func testOutboxConcurrentUpdates(t *testing.T, open Open) {
	s := open(t)
	const n = 40
	for i := range n {
		must(t, s.Outbox.InsertEndpoint(ctx, endpoint("a", fmt.Sprintf("e%02d", i), tenants.EventTypes()...)))
	}
	ingestGranted(t, s, "f1", "m1", 1)
	if got := waiting(t, s); got != "[m1]" {
		t.Fatalf("waiting = %s", got)
	}
	last := t0.Add(sec(3))
	// updateAll stores an outcome per endpoint at once, and one of a missing delivery with
	// missing, and checks each is answered as its own.
	updateAll := func(status string, result int, missing bool) {
		t.Helper()
		errs := make([]error, n+1)
		var wg sync.WaitGroup
		for i := range n + 1 {
			if i == n && !missing {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := tenants.Delivery{EndpointID: fmt.Sprintf("e%02d", i), EventID: "m1", TenantID: "a", CreatedAt: t0.Add(sec(1)),
					Status: status, Attempts: 1, NextAt: last, LastAt: &last, LastResult: fmt.Sprint(result + i)}
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
		if missing && !errors.Is(errs[n], tenants.ErrNotFound) {
			t.Errorf("Update of a missing delivery = %v, want ErrNotFound", errs[n])
		}
		for i := range n {
			log, err := s.Outbox.Deliveries(ctx, "a", fmt.Sprintf("e%02d", i), 10)
			if err != nil || len(log) != 1 || log[0].Status != status || log[0].LastResult != fmt.Sprint(result+i) {
				t.Errorf("delivery log of e%02d = %+v, %v", i, log, err)
			}
		}
	}
	updateAll(tenants.DeliveryPending, 500, false)
	updateAll(tenants.DeliveryDelivered, 200, true)
	if due, _ := s.Outbox.Due(ctx, t0.Add(time.Hour), 100, nil); len(due) != 0 {
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
