package main

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestManyKeysAuthenticateAsThemselves uses many API keys of two tenants, unknown keys and
// SendGrid's ?tenant= in an interleaved, concurrent stream, across the expiry of cached
// misses: every request must be answered for its own key. (Cached lookups once kept views of
// Fiber's reused request buffer as map keys: keys answered as other keys, with 401s, and the
// cache's expiry crashed the process.)
func TestManyKeysAuthenticateAsThemselves(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a, b := openTenant(s), openTenant(s)
	type cred struct {
		key    string
		tenant string
		write  bool
	}
	var creds []cred
	for i := 0; i < 24; i++ {
		tn := a
		if i%2 == 1 {
			tn = b
		}
		scopes := "submissions:read"
		if i%3 == 0 {
			scopes = "all"
		}
		creds = append(creds, cred{s.key(tn, scopes), tn, i%3 == 0})
	}
	submit(t, s, creds[0].key, map[string]any{"form_id": "petition", "submission_id": "mine", "email": "mine@example.org",
		"consent_to_general_contact_email": true})

	round := func(t *testing.T, round int) {
		var wg sync.WaitGroup
		errs := make(chan string, 1000)
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < 4*len(creds); i += 8 {
					c := creds[i%len(creds)]
					// A read of tenant a's submission: 200 for a's keys, 404 for b's.
					r, err := send(s, "GET", "/api/v1/forms/submissions/mine", c.key, nil)
					want := 200
					if c.tenant == b {
						want = 404
					}
					if err != nil || r.Status != want {
						errs <- fmt.Sprintf("round %d key %d read: %v %d %s", round, i%len(creds), err, r.Status, r.Body)
					}
					// A write: 200 with the scope, 403 without.
					r, err = send(s, "POST", acceptPath, c.key, validEmailSub)
					want = 403
					if c.write {
						want = 200
					}
					if err != nil || r.Status != want {
						errs <- fmt.Sprintf("round %d key %d write: %v %d %s", round, i%len(creds), err, r.Status, r.Body)
					}
					// Misses: unknown keys and an unknown SendGrid tenant.
					unknown := fmt.Sprintf("cf_%016x_abcdefghijklmnopqrstuvwxyz234567", round*1000+i)
					if r, err := send(s, "GET", "/api/v1/consents?email=a%40example.org", unknown, nil); err != nil || r.Status != 401 {
						errs <- fmt.Sprintf("unknown key: %v %d", err, r.Status)
					}
					if r, err := send(s, "POST", fmt.Sprintf("/api/v1/sendgrid/unsubscribe?tenant=t_%08d", i), "", "[]",
						"X-Twilio-Email-Event-Webhook-Signature: MEUCIQ==", "X-Twilio-Email-Event-Webhook-Timestamp: 1"); err != nil || r.Status != 401 {
						errs <- fmt.Sprintf("unknown sendgrid tenant: %v %d", err, r.Status)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		n := 0
		for e := range errs {
			if n++; n <= 10 {
				t.Error(e)
			}
		}
	}
	round(t, 1)
	// Past the lifetime of cached misses (2 s), so that expiry runs over the entries.
	time.Sleep(2500 * time.Millisecond)
	round(t, 2)
}
