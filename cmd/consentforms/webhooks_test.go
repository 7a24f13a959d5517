package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/dispatch/dispatchtest"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// receiver is a webhook endpoint on loopback. While down it answers 503 to every delivery.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	down   bool
	failed []http.Header // deliveries refused while down
	got    []delivery
	signal chan struct{}
}

type delivery struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, down bool) *receiver {
	r := &receiver{down: down, signal: make(chan struct{}, 100)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		defer func() { r.signal <- struct{}{} }()
		if r.down {
			r.failed = append(r.failed, req.Header.Clone())
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		r.got = append(r.got, delivery{header: req.Header.Clone(), body: body})
	}))
	t.Cleanup(r.Close)
	return r
}

// await waits until cond holds of the receiver, failing the test if it does not within a
// generous bound (a hang guard, not a timing assertion).
func (r *receiver) await(t *testing.T, what string, cond func(r *receiver) bool) {
	t.Helper()
	bound := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		ok := cond(r)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.signal:
		case <-bound:
			t.Fatalf("receiver: %s never happened", what)
		}
	}
}

// webhookEnv lets endpoints on loopback be registered and retries quickly.
var webhookEnv = []string{"CONSENTFORMS_WEBHOOK_ALLOW_INSECURE=1", "CONSENTFORMS_WEBHOOK_BACKOFF=20ms", "CONSENTFORMS_WEBHOOK_POLL=20ms"}

// verifySignature checks a delivery as docs/WEBHOOKS.md tells a receiver to, written out
// here rather than through package webhook, so that the documentation is what is tested.
func verifySignature(t *testing.T, secret string, d delivery) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatalf("secret %q is not whsec_<base64>", secret)
	}
	id, ts := d.header.Get("webhook-id"), d.header.Get("webhook-timestamp")
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(d.body)
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	if got := d.header.Get("webhook-signature"); got != want || id == "" || ts == "" {
		t.Errorf("signature %q of id %q at %q; want %q", got, id, ts, want)
	}
	if err := webhook.Verify(secret, id, ts, d.header.Get("webhook-signature"), d.body, time.Now(), 5*time.Minute); err != nil {
		t.Errorf("webhook.Verify: %v", err)
	}
}

// TestWebhookRevokedDelivery: an unsubscribe produces one signed consent.revoked delivery to
// an endpoint that subscribed to it, carrying ids and statuses but no contact details.
func TestWebhookRevokedDelivery(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, false)
	s := startServer(t, webhookEnv...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	ep := s.cli("webhook", "create", "--tenant", tn, "--url", rcv.URL+"/hooks", "--events", "consent.revoked")
	secret, _ := ep["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || ep["id"] == nil {
		t.Fatalf("webhook create printed %v", ep)
	}
	if list := s.cli("webhook", "list", "--tenant", tn)["endpoints"].([]any); len(list) != 1 ||
		strings.Contains(toJSON(list), secret) {
		t.Errorf("webhook list = %v; want one endpoint, without its secret", list)
	}
	subscriber(t, s, k, "s1", "revoke.me@example.org", "+447700900123")
	assertUnsubscribed(t, call(t, s, "POST", unsubPath("brevo"), k, map[string]any{"email": "revoke.me@example.org"}), 1)

	rcv.await(t, "a delivery", func(r *receiver) bool { return len(r.got) > 0 })
	rcv.mu.Lock()
	d := rcv.got[0]
	n := len(rcv.got)
	rcv.mu.Unlock()
	verifySignature(t, secret, d)
	if n != 1 {
		t.Errorf("%d deliveries; want 1 (consent.granted is not subscribed)", n)
	}
	var body struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      struct {
			TenantID, RecordID, Kind string
			Consents                 map[string]struct{ Status string }
		} `json:"data"`
	}
	if err := json.Unmarshal(d.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Type != "consent.revoked" || body.Data.TenantID != tn || body.Data.RecordID != "s1" || body.Data.Kind != "formSubmission" ||
		body.Data.Consents["generalContactEmail"].Status != "revoked" || body.Data.Consents["primaryPurpose"].Status != "granted" {
		t.Errorf("payload = %s", d.body)
	}
	if !secondsTime.MatchString(body.Timestamp) {
		t.Errorf("timestamp %q, want RFC 3339 to the second, as every API time", body.Timestamp)
	}
	for _, personal := range []string{"revoke.me", "7700900123", "trees"} {
		if strings.Contains(string(d.body), personal) {
			t.Errorf("payload carries %q: %s", personal, d.body)
		}
	}
}

// TestWebhookReceiverDown: a receiver that refuses deliveries for a while gets the event, under
// the same webhook-id, once it is back.
func TestWebhookReceiverDown(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, true)
	s := startServer(t, webhookEnv...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	secret := s.cli("webhook", "create", "--tenant", tn, "--url", rcv.URL, "--events", "all")["secret"].(string)
	subscriber(t, s, k, "s1", "down@example.org", "")

	rcv.await(t, "three refused attempts", func(r *receiver) bool { return len(r.failed) >= 3 })
	rcv.mu.Lock()
	rcv.down = false
	rcv.mu.Unlock()
	rcv.await(t, "the delivery after the receiver came back", func(r *receiver) bool { return len(r.got) > 0 })

	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	d := rcv.got[0]
	verifySignature(t, secret, d)
	if !strings.Contains(string(d.body), `"type":"consent.granted"`) {
		t.Errorf("delivered %s; want consent.granted", d.body)
	}
	for _, h := range rcv.failed {
		if h.Get("webhook-id") != d.header.Get("webhook-id") {
			t.Errorf("a retry came as %q, the delivery as %q; want one id", h.Get("webhook-id"), d.header.Get("webhook-id"))
		}
	}
}

// TestWebhookEndpointURLs: without CONSENTFORMS_WEBHOOK_ALLOW_INSECURE only https:// URLs of
// public addresses are accepted; bad event names are refused.
func TestWebhookEndpointURLs(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	for _, bad := range []struct{ url, events string }{
		{"http://crm.example.org/hook", "all"},
		{"https://127.0.0.1/hook", "all"},
		{"https://10.1.2.3/hook", "all"},
		{"https://169.254.169.254/latest", "all"},
		{"https://[::1]/hook", "all"},
		{"https://crm.example.org/hook", "consent.changed"},
		{"https://crm.example.org/hook", ""},
	} {
		if out, err := s.cliErr("webhook", "create", "--tenant", tn, "--url", bad.url, "--events", bad.events); err == nil {
			t.Errorf("webhook create %s %q = %v; want refused", bad.url, bad.events, out)
		}
	}
	ep := s.cli("webhook", "create", "--tenant", tn, "--url", "https://crm.example.org/hook", "--events", "consent.granted,record.anonymised")
	if toJSON(ep["events"]) != `["consent.granted","record.anonymised"]` {
		t.Errorf("events = %v", ep["events"])
	}
	if out := s.cli("webhook", "delete", "--tenant", tn, "--id", ep["id"].(string)); out["deleted"] != true {
		t.Errorf("delete = %v", out)
	}
	if _, err := s.cliErr("webhook", "delete", "--tenant", tn, "--id", ep["id"].(string)); err == nil {
		t.Error("deleting twice succeeded")
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestWebhookEndpointDisabled: deliveries that keep failing for the retry window disable the
// endpoint, which shows as failing, and stop.
func TestWebhookEndpointDisabled(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, true)
	s := startServer(t, append(webhookEnv, "CONSENTFORMS_WEBHOOK_RETRY_WINDOW=200ms")...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	s.cli("webhook", "create", "--tenant", tn, "--url", rcv.URL, "--events", "consent.granted")
	subscriber(t, s, k, "s1", "never@example.org", "")
	var failing any
	for i := 0; i < 1000 && failing == nil; i++ { // a hang guard, not a timing assertion
		rcv.await(t, "an attempt", func(r *receiver) bool { return len(r.failed) > 0 })
		failing = s.cli("webhook", "list", "--tenant", tn)["endpoints"].([]any)[0].(map[string]any)["failingSince"]
		time.Sleep(10 * time.Millisecond)
	}
	if failing == nil {
		t.Fatal("the endpoint was never marked failing")
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.got) != 0 {
		t.Errorf("%d deliveries to a receiver that is down", len(rcv.got))
	}
}

// TestWebhookPerEndpointSetting: with CONSENTFORMS_WEBHOOK_PER_ENDPOINT=3, a receiver that
// holds its requests open gets three attempts at once from the server, never a fourth, while
// more events wait for it; a value the dispatcher cannot honour stops the start with the
// setting named.
func TestWebhookPerEndpointSetting(t *testing.T) {
	t.Parallel()
	rcv := dispatchtest.NewHolding()
	t.Cleanup(rcv.Close)
	// The attempts held open must not time out meanwhile: one that did would end in the
	// server before the receiver saw its request go, and the next would overlap it here.
	s := startServer(t, append(webhookEnv, "CONSENTFORMS_WEBHOOK_PER_ENDPOINT=3", "CONSENTFORMS_WEBHOOK_TIMEOUT=60s")...)
	tn := openTenant(s)
	k := s.key(tn, "all")
	s.cli("webhook", "create", "--tenant", tn, "--url", rcv.URL, "--events", "all")
	for i := range 6 {
		subscriber(t, s, k, fmt.Sprintf("p%d", i), fmt.Sprintf("p%d@example.org", i), "")
	}
	bound := time.Now().Add(30 * time.Second)
	for rcv.Open() < 3 {
		if time.Now().After(bound) {
			t.Fatalf("%d attempts in flight after 30 s; want 3", rcv.Open())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Passes go on every 20 ms (webhookEnv) while three more events wait: none adds a fourth.
	time.Sleep(200 * time.Millisecond)
	if got := rcv.Most(); got != 3 {
		t.Errorf("%d attempts in flight to the endpoint at most; want 3", got)
	}

	for _, v := range []string{"0", "17", "two"} {
		cfg := configFrom(func(key string) string {
			if key == "CONSENTFORMS_WEBHOOK_PER_ENDPOINT" {
				return v
			}
			return ""
		})
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if err := serveOn(context.Background(), cfg, ln, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "CONSENTFORMS_WEBHOOK_PER_ENDPOINT") {
			t.Errorf("%q: the start answered %v; want it refused, naming the setting", v, err)
		}
	}
}
