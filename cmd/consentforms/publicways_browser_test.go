package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/consentforms/consentforms/tenants/ops"
)

// TestPublicWaysBrowserDoubleOptIn: on a double-opt-in form with published texts, a person
// signs in Chromium through the hosted page and through the plain-HTML snippet, as staff copy it
// from the form's admin page, served by the organisation's own site on another loopback origin.
// Both ways: the words beside the boxes are the published texts, the thanks say to check the
// inbox, the e-mail consent is stored pending under the version the page carried, and the
// confirmation event names the record with an absolute link of the public URL.
func TestPublicWaysBrowserDoubleOptIn(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	browserSideOnly(t)
	rcv := newReceiver(t, false)
	s := startServer(t, webhookEnv...)
	tn := openTenant(s)
	rd := s.key(tn, "submissions:read")
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--double-opt-in", "email", "--hosted-page", "on")
	const primaryText, mailText = "We keep your signature for the forest petition.", "We may write to you about the forest."
	s.cli("form", "text", "--tenant", tn, "--form-id", "petition", "--consent", "primary_purpose", "--lang", "en", "--text", primaryText)
	mail := s.cli("form", "text", "--tenant", tn, "--form-id", "petition", "--consent", "general_contact_email", "--lang", "en", "--text", mailText)
	version := mail["version"].(string)
	s.cli("webhook", "create", "--tenant", tn, "--url", rcv.URL+"/hooks", "--events", "consent.confirmation_requested")

	// stored checks what a way stored: the e-mail consent pending under the version shown, the
	// primary purpose granted, and the event with the absolute confirmation link.
	stored := func(way, id string) {
		t.Helper()
		rec := recordRead(t, s, rd, id)
		if got := consentOf(rec, "generalContactEmail")["status"]; got != "pending" {
			t.Errorf("%s: e-mail consent %v, want pending", way, got)
		}
		if got := consentOf(rec, "primaryPurpose")["status"]; got != "granted" {
			t.Errorf("%s: primary purpose %v, want granted", way, got)
		}
		if got := str(rec, "consents.generalContactEmail.text.version"); got != version {
			t.Errorf("%s: the record names text version %q, the page carried %q", way, got, version)
		}
		if got := str(rec, "consents.generalContactEmail.text.text"); got != "" && got != mailText {
			t.Errorf("%s: the record's text %q, the page showed %q", way, got, mailText)
		}
		rcv.await(t, way+" confirmation event", func(r *receiver) bool {
			for _, d := range r.got {
				if b := string(d.body); strings.Contains(b, `"type":"consent.confirmation_requested"`) && strings.Contains(b, id) {
					return strings.Contains(b, `"`+s.LinkBase+"/c/")
				}
			}
			return false
		})
	}
	label := func(u *adminUI, css string) string {
		t.Helper()
		got, err := chromedp.Run(u.ctx, chromedp.Text(chromedp.CSS(css)))
		if err != nil {
			t.Fatalf("label %s: %v", css, err)
		}
		return strings.TrimSpace(got)
	}

	// The hosted page, with its script: the challenge solved in the page.
	u := newAdminUI(t, s)
	wantStatus(t, "hosted page", u.open("/f/"+tn+"/petition"), 200)
	if got := label(u, `label[for="f-consent_to_general_contact_email"]`); !strings.Contains(got, mailText) {
		t.Errorf("the hosted page shows %q beside the e-mail box, want the published %q", got, mailText)
	}
	sid := ops.PublicSubmissionID("petition", u.value(`input[name=submission_id]`))
	u.do(chromedp.SendKeys("#f-email", "page@example.org"), chromedp.Click("#f-consent_to_primary_purpose"),
		chromedp.Click("#f-consent_to_general_contact_email"))
	u.do(chromedp.Click(sel("form-submit")), chromedp.WaitVisible(sel("form-check-inbox")))
	u.shot("hosted-form-pending-1280")
	stored("hosted page", sid)

	// The snippet, as staff copy it from the form's page.
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	wantStatus(t, "form", u.open("/admin/forms/petition"), 200)
	snippet := u.value(`[data-testid="embed-html"]`)
	if !strings.Contains(snippet, `data-cf-text-version="`+version+`"`) || !strings.Contains(snippet, mailText) {
		t.Fatalf("the snippet lacks the published texts or their version %s: %s", version, snippet)
	}
	var pk atomic.Value // the publishable key, issued for the site's origin once it has one
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Save the forest</title></head>` +
			`<body><h1>Save the forest</h1>` + strings.ReplaceAll(snippet, "cf_pk_YOUR_PUBLISHABLE_KEY", pk.Load().(string)) + `</body></html>`))
	}))
	t.Cleanup(site.Close)
	pk.Store(s.cli("key", "create", "--tenant", tn, "--publishable", "--forms", "petition", "--origins", site.URL, "--name", "site")["key"].(string))
	if _, err := chromedp.Run(u.ctx, chromedp.NavigateResponse(site.URL+"/")); err != nil {
		t.Fatalf("open the site: %v", err)
	}
	if got := label(u, `label[for="cf-consent_to_general_contact_email"]`); got != mailText {
		t.Errorf("the snippet shows %q beside the e-mail box, want the published %q", got, mailText)
	}
	if got := label(u, `label[for="cf-consent_to_primary_purpose"]`); got != primaryText {
		t.Errorf("the snippet shows %q beside the primary box, want the published %q", got, primaryText)
	}
	u.do(chromedp.SendKeys("#cf-email", "site@example.org"), chromedp.Click("#cf-consent_to_primary_purpose"),
		chromedp.Click("#cf-consent_to_general_contact_email"), chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`[data-cf-done]`))
	if got := label(u, `[data-cf-done]`); !strings.Contains(got, "check your inbox") {
		t.Errorf("the snippet's thanks %q do not say to check the inbox", got)
	}
	u.shot("snippet-pending-1280")
	subs, _ := at(consentsOf(t, s, rd, "email", "site@example.org"), "submissions").([]any)
	if len(subs) != 1 {
		t.Fatalf("the snippet's person has %d submissions, want 1", len(subs))
	}
	id := str(subs[0], "submissionId")
	if !strings.HasPrefix(id, "pub-") {
		t.Errorf("the snippet's record id %q is not in the public ways' namespace", id)
	}
	stored("snippet", id)
}
