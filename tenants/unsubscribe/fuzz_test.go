package unsubscribe

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func FuzzBrevo(f *testing.F)     { fuzzProvider(f, "brevo") }
func FuzzMailchimp(f *testing.F) { fuzzProvider(f, "mailchimp") }
func FuzzSendGrid(f *testing.F)  { fuzzProvider(f, "sendgrid") }
func FuzzMailjet(f *testing.F)   { fuzzProvider(f, "mailjet") }
func FuzzPostmark(f *testing.F)  { fuzzProvider(f, "postmark") }

// fuzzProvider seeds a provider's fuzz target with its testdata payloads (and the generic body)
// under the content types it is posted with, then checks the invariants of every result.
func fuzzProvider(f *testing.F, provider string) {
	seeds, err := filepath.Glob(filepath.Join("testdata", provider+"_*"))
	if err != nil {
		f.Fatal(err)
	}
	seeds = append(seeds, filepath.Join("testdata", "generic.json"))
	for _, path := range seeds {
		body, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		ct := jsonType
		if strings.HasSuffix(path, ".form") {
			ct = formType
		}
		f.Add(ct, body)
		f.Add("", body)
	}
	f.Add("application/json; charset=utf-8", []byte(`[{"event":"unsubscribe","email":" a@example.com "}]`))
	f.Add(formType, []byte(`type=unsubscribe&data[email]=a%40example.com`))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		res, err := Parse(provider, contentType, body)
		checkResult(t, res, err)
		again, err2 := Parse(provider, contentType, body)
		if !reflect.DeepEqual(res, again) || !sameErrorKind(err, err2) {
			t.Fatalf("Parse is not deterministic: %+v/%v then %+v/%v", res, err, again, err2)
		}
		if provider != "mailchimp" {
			// Only Mailchimp reads a body without content type as a form; for the others a
			// missing content type and application/json are the same thing.
			a, errA := Parse(provider, "", body)
			b, errB := Parse(provider, "application/json; charset=utf-8", body)
			if !reflect.DeepEqual(a, b) || !sameErrorKind(errA, errB) {
				t.Fatalf("no content type gave %+v/%v, JSON gave %+v/%v", a, errA, b, errB)
			}
		}
		if res.Generic {
			// Whether a body is generic does not depend on the path it was posted to.
			for _, p := range Providers() {
				other, err := Parse(p, contentType, body)
				if err != nil || !reflect.DeepEqual(other, res) {
					t.Fatalf("generic on %s (%+v) but %+v/%v on %s", provider, res, other, err, p)
				}
			}
		}
	})
}

// checkResult asserts what holds for every Parse outcome.
func checkResult(t *testing.T, res Result, err error) {
	t.Helper()
	if err != nil {
		if !reflect.DeepEqual(res, Result{}) {
			t.Fatalf("error %v came with result %+v", err, res)
		}
		if errors.Is(err, ErrMalformed) == errors.Is(err, ErrNoIdentifier) {
			t.Fatalf("error %v is not exactly one of ErrMalformed, ErrNoIdentifier", err)
		}
		return
	}
	if res.Ignored < 0 || len(res.Events)+res.Ignored > maxEvents {
		t.Fatalf("counts out of range: %d events, %d ignored", len(res.Events), res.Ignored)
	}
	if res.Generic && (len(res.Events) != 1 || res.Ignored != 0) {
		t.Fatalf("generic result %+v", res)
	}
	seen := make(map[Event]bool)
	for _, ev := range res.Events {
		if ev.Email == "" && ev.Phone == "" {
			t.Fatalf("event without identifier: %+v", ev)
		}
		if ev.Email != strings.TrimSpace(ev.Email) || ev.Phone != strings.TrimSpace(ev.Phone) ||
			ev.EventID != strings.TrimSpace(ev.EventID) {
			t.Fatalf("event not trimmed: %+v", ev)
		}
		if ev.EventID != "" && seen[ev] {
			t.Fatalf("duplicate event %+v", ev)
		}
		seen[ev] = true
	}
}

func sameErrorKind(a, b error) bool {
	for _, target := range []error{ErrMalformed, ErrNoIdentifier, ErrUnknownProvider} {
		if errors.Is(a, target) != errors.Is(b, target) {
			return false
		}
	}
	return (a == nil) == (b == nil)
}
