package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
)

// benchSMS seeds people × 2 records of each of the four kinds on the embedded store, general
// contact by phone granted on each record with consents, starts the real server on that data
// and times n sequential SMS opt-outs per provider (Twilio's form-encoded webhook, Telnyx's
// JSON one), each STOP from a different person's number, with the bearer key in place of the
// provider's signature (docs/API.md §8.6). Twilio's answer is TwiML, so a sample of its senders
// is read back afterwards; Telnyx's answer says how many records it revoked.
func benchSMS(ctx context.Context, bin string, people, n int) error {
	// Twilio's senders, Telnyx's and the warm-up's are disjoint: persons i*stride, +1 and +2.
	stride := people / n
	if stride < 3 {
		return fmt.Errorf("-people %d is too few for -n %d: each request needs a person of its own (3n at least)", people, n)
	}
	dir, err := os.MkdirTemp("", "bench-sms")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	hmacKey, err := writeSecrets(dir)
	if err != nil {
		return err
	}
	tid, key, err := provision(bin, dir, nil)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := seed(ctx, dir, tid, hmacKey, people, true); err != nil {
		return err
	}
	fmt.Printf("seeded %d records (%d persons × 2 of each of 4 kinds) in %s\n", 8*people, people, time.Since(start).Round(time.Second))
	srv, err := startServer(ctx, bin, dir)
	if err != nil {
		return err
	}
	defer srv.stop()
	client := &http.Client{Timeout: 30 * time.Second}
	for i := range min(50, n) {
		if _, _, err := smsOptOut(client, srv.url, key, tid, "twilio", i*stride+2, "warm"); err != nil {
			return err
		}
	}
	fmt.Printf("%d sequential STOPs per provider, each from a different person's number (6 records with phone consent each)\n", n)
	for _, provider := range []string{"twilio", "telnyx"} {
		offset := 0
		if provider == "telnyx" {
			offset = 1
		}
		var took []time.Duration
		nothing := 0
		cpu0, _ := srv.usage()
		for i := range n {
			d, revoked, err := smsOptOut(client, srv.url, key, tid, provider, i*stride+offset, "m")
			if err != nil {
				return err
			}
			if revoked == 0 {
				nothing++
			}
			took = append(took, d)
		}
		cpu1, _ := srv.usage()
		printLatency(provider+" STOP, answer time", took)
		fmt.Printf("  server CPU %.0f µs per request", float64((cpu1-cpu0).Microseconds())/float64(n))
		if provider == "telnyx" {
			fmt.Printf("; %d answers revoked nothing", nothing)
		}
		fmt.Println()
		if provider == "twilio" {
			// TwiML says nothing: read a sample of the senders back.
			if err := checkRevoked(srv.url, key, n, stride); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRevoked reads back a sample of the n senders (persons i*stride) after their Twilio
// STOPs: each must read phone consent revoked.
func checkRevoked(url, key string, n, stride int) error {
	bad := 0
	for i := 0; i < n; i += max(1, n/20) {
		status, body, _, err := call("POST", url+"/api/v1/consents/search", key, map[string]any{"phone": phone(i * stride)})
		var r struct {
			GeneralContact struct{ Phone string } `json:"generalContact"`
		}
		if err != nil || status != 200 || json.Unmarshal(body, &r) != nil || r.GeneralContact.Phone != "revoked" {
			bad++
			fmt.Printf("  person %d after twilio STOP: %d %s %v\n", i*stride, status, body, err)
		}
	}
	if bad > 0 {
		return fmt.Errorf("twilio: %d sampled senders still have phone consent", bad)
	}
	return nil
}

var revokedCount = regexp.MustCompile(`^(\d+) revoked`)

// smsOptOut posts one STOP from person p's number to the provider's path and returns the
// answer time and, for the JSON answers, how many records it revoked (-1 for Twilio's TwiML).
// Any answer but 200 is an error.
func smsOptOut(client *http.Client, base, key, tenantID, provider string, p int, idPrefix string) (time.Duration, int, error) {
	msgID := fmt.Sprintf("%s-%s-%d-%d", idPrefix, provider, p, time.Now().UnixNano())
	var req *http.Request
	switch provider {
	case "twilio":
		form := url.Values{"From": {phone(p)}, "To": {"+15005550006"}, "Body": {"STOP"}, "MessageSid": {"SM" + msgID}}
		req, _ = http.NewRequest("POST", base+"/api/v1/twilio/unsubscribe?tenant="+tenantID, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	case "telnyx":
		b, _ := json.Marshal(map[string]any{"data": map[string]any{"event_type": "message.received", "id": msgID,
			"payload": map[string]any{"from": map[string]any{"phone_number": phone(p)}, "to": []any{map[string]any{"phone_number": "+15005550006"}}, "text": "STOP"}}})
		req, _ = http.NewRequest("POST", base+"/api/v1/telnyx/unsubscribe?tenant="+tenantID, strings.NewReader(string(b)))
		req.Header.Set("Content-Type", "application/json")
	default:
		return 0, 0, fmt.Errorf("unknown provider %q", provider)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != 200 {
		return 0, 0, fmt.Errorf("%s STOP from person %d: %d %s", provider, p, resp.StatusCode, body)
	}
	if provider == "twilio" {
		return took, -1, nil
	}
	var r struct{ Message string }
	_ = json.Unmarshal(body, &r)
	m := revokedCount.FindStringSubmatch(r.Message)
	if m == nil {
		return 0, 0, fmt.Errorf("%s STOP from person %d: unexpected answer %s", provider, p, body)
	}
	var revoked int
	fmt.Sscan(m[1], &revoked)
	return took, revoked, nil
}
