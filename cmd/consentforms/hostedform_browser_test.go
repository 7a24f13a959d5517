package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/consentforms/consentforms/tenants/altcha"
	"github.com/consentforms/consentforms/tenants/ops"
)

// TestHostedFormBrowser: in Chromium the hosted page submits with its script (the challenge
// solved in the page) and, where the form allows it, without script (marked unchallenged); a refusal shows each error next to its field and in
// the announced summary; an erasure afterwards removes what the page stored. It also times the
// page's solver at the service's difficulty (logged) and takes the 375 px and 1280 px shots.
func TestHostedFormBrowser(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	browserSideOnly(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--hosted-page", "on", "--allow-no-js", "on")
	page := "/f/" + tn + "/petition"
	rd := s.key(tn, "submissions:read,gdpr:anonymise")

	u := newAdminUI(t, s)
	wantStatus(t, "page", u.open(page), 200)
	for _, w := range []int64{375, 1280} {
		u.do(chromedp.EmulateViewport(w, 900))
		u.shot("hosted-form-" + strconv.FormatInt(w, 10))
	}
	u.do(chromedp.EmulateViewport(1280, 900))
	// A wrong address, with the script: refused, the error beside the field and in the summary.
	u.do(chromedp.SendKeys("#f-email", "not-an-address"), chromedp.Click("#f-consent_to_general_contact_email"))
	u.do(chromedp.Click(sel("form-submit")), chromedp.WaitVisible(sel("error-email")))
	if got := u.text("form-error-summary"); !strings.Contains(got, "not sent") {
		t.Errorf("summary %q", got)
	}
	if role, live := u.attr("form-errors", "role"), u.attr("form-errors", "aria-live"); role != "alert" || live != "assertive" {
		t.Errorf("the summary is not announced: role %q aria-live %q", role, live)
	}
	if got, err := chromedp.Run(u.ctx, chromedp.Evaluate[string](`document.getElementById("f-email").getAttribute("aria-describedby")`)); err != nil || got != "f-email-error" {
		t.Errorf("the field does not point at its error: %q, %v", got, err)
	}
	u.shot("hosted-form-error-1280")
	u.do(chromedp.EmulateViewport(375, 900))
	u.shot("hosted-form-error-375")
	u.do(chromedp.EmulateViewport(1280, 900))
	// Corrected: the script solves the challenge and the page posts it.
	sid := ops.PublicSubmissionID("petition", u.value(`input[name=submission_id]`))
	u.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("f-email").value = ""`), chromedp.SendKeys("#f-email", "js@example.org"),
		chromedp.SendKeys("#f-first_name", "Jo"), chromedp.Click("#f-consent_to_primary_purpose"))
	u.do(chromedp.Click(sel("form-submit")), chromedp.WaitVisible(sel("form-thanks")))
	got := call(t, s, "GET", "/api/v1/forms/submissions/"+sid, rd, nil)
	if got.Status != 200 || str(got.JSON(t), "contact.email") != "js@example.org" || got.JSON(t)["unchallenged"] != nil {
		t.Fatalf("with script: %d %s", got.Status, got.Body)
	}

	// Without script: the same page posts as plain HTML.
	wantStatus(t, "page", u.open(page), 200)
	if _, err := chromedp.Call(u.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "page without script", u.open(page), 200)
	sid2 := ops.PublicSubmissionID("petition", u.value(`input[name=submission_id]`))
	u.do(chromedp.SendKeys("#f-email", "nojs@example.org"), chromedp.Click("#f-consent_to_general_contact_email"))
	wantStatus(t, "post without script", u.submit("form-submit"), 200)
	u.visible("form-thanks")
	got = call(t, s, "GET", "/api/v1/forms/submissions/"+sid2, rd, nil)
	if got.Status != 200 || str(got.JSON(t), "contact.email") != "nojs@example.org" || got.JSON(t)["unchallenged"] != true {
		t.Fatalf("without script: %d %s", got.Status, got.Body)
	}
	// Erasure removes what the page stored.
	for _, p := range []struct{ id, email string }{{sid, "js@example.org"}, {sid2, "nojs@example.org"}} {
		if c := erase(t, s, rd, map[string]any{"email": p.email}); c.FormSubmissions != 1 {
			t.Errorf("erasure of %s: %+v", p.email, c)
		}
		if after := string(call(t, s, "GET", "/api/v1/forms/submissions/"+p.id, rd, nil).Body); strings.Contains(after, p.email) {
			t.Errorf("after erasure: %s", after)
		}
	}
}

// TestHostedFormSolveTime times the page's solver in Chromium on 21 challenges at the
// service's difficulty and logs the median (docs/API.md §14). It is a measurement, not a
// check (TestHostedFormBrowser solves the page's challenge): it runs when asked,
// CONSENTFORMS_MEASURE=1 go test ./cmd/consentforms -run TestHostedFormSolveTime -v.
func TestHostedFormSolveTime(t *testing.T) {
	if os.Getenv("CONSENTFORMS_MEASURE") == "" {
		t.Skip("a measurement: set CONSENTFORMS_MEASURE=1")
	}
	t.Parallel()
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("form", "update", "--tenant", tn, "--form-id", "petition", "--hosted-page", "on")
	u := newAdminUI(t, s)
	wantStatus(t, "page", u.open("/f/"+tn+"/petition"), 200)
	signer := altcha.Signer{Key: []byte("browser timing key, not the server's"), MaxNumber: altcha.DefaultMaxNumber, TTL: time.Minute}
	var cs []altcha.Challenge
	for range 21 {
		c, err := signer.Create("timing", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	js, _ := json.Marshal(cs)
	ms, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]float64](`(async () => { const out = [];
		for (const c of `+string(js)+`) { const t0 = performance.now(); if (await window.cfSolve(c) < 0) throw new Error("unsolved"); out.push(performance.now() - t0); }
		return out; })()`, chromedp.EvalAwaitPromise))
	if err != nil || len(ms) != 21 {
		t.Fatalf("timing: %v %v", ms, err)
	}
	slices.Sort(ms)
	t.Logf("Chromium solve time at maxnumber %d over 21 challenges: median %.0f ms, min %.0f ms, max %.0f ms", altcha.DefaultMaxNumber, ms[10], ms[0], ms[20])
}

// value is the value of the first element matching css.
func (u *adminUI) value(css string) string {
	u.t.Helper()
	v, err := chromedp.Run(u.ctx, chromedp.Evaluate[string](`document.querySelector(`+strconv.Quote(css)+`).value`))
	if err != nil {
		u.t.Fatalf("value of %s: %v", css, err)
	}
	return v
}

// TestAdminBrowserFormEditor: a campaigner adds fields of the new types with label, help,
// required and choices, reorders them by their position numbers, and finds the snippets and
// the preview link; the hosted page then asks the fields in that order.
func TestAdminBrowserFormEditor(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	s := startServer(t)
	tn := openTenant(s)
	s.cli("staff", "create", "--email", "lead@example.org", "--password", "lead-password-1", "--role", "tenant_admin", "--tenant", tn)
	// Submissions carry custom fields the form does not declare yet: the page lists them,
	// most-seen first, marked as not declared.
	k := s.key(tn, "submissions:write")
	for i, extra := range []map[string]any{{"region": "North", "notes": "call after six"}, {"region": "South"}} {
		body := map[string]any{"form_id": "petition", "submission_id": fmt.Sprintf("arriving-%d", i), "email": fmt.Sprintf("p%d@example.org", i),
			"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "2y", "consent_to_general_contact_email": true}
		maps.Copy(body, extra)
		submit(t, s, k, body)
	}
	u := newAdminUI(t, s)
	wantStatus(t, "sign in", u.signedIn("lead@example.org", "lead-password-1"), 200)
	wantStatus(t, "form", u.open("/admin/forms/petition"), 200)
	if got := u.texts("arriving-field"); len(got) != 2 || !strings.HasPrefix(got[0], "region") || !strings.Contains(got[0], "2") ||
		!strings.HasPrefix(got[1], "notes") || u.count("arriving-undeclared") != 2 {
		t.Errorf("arriving fields %q; want region (2) then notes (1), both not declared", got)
	}
	u.fill("field-0-name", "email")
	u.do(chromedp.SetValue(sel("input-field-0-type"), "email"), chromedp.Click(sel("input-field-0-required")))
	u.fill("field-0-order", "2")
	u.fill("field-1-name", "region")
	u.fill("field-1-label", "Your region")
	u.fill("field-1-help", "Where you live.")
	u.do(chromedp.SetValue(sel("input-field-1-type"), "select"), chromedp.SendKeys(sel("input-field-1-options"), "North\nSouth"))
	u.fill("field-1-order", "1")
	u.do(chromedp.Click("#hosted_page"))
	wantStatus(t, "save", u.submit("form-save"), 200)
	if on, err := chromedp.Run(u.ctx, chromedp.Evaluate[bool](`document.getElementById("hosted_page").checked`)); err != nil || !on {
		t.Errorf("the hosted page setting does not show as on after saving: %v %v", on, err)
	}
	if got := u.value(`[data-testid="input-field-0-name"]`); got != "region" {
		t.Errorf("first row after reordering: %q, want region", got)
	}
	iframe, plain := u.value(`[data-testid="embed-iframe"]`), u.value(`[data-testid="embed-html"]`)
	if !strings.Contains(iframe, "/f/"+tn+"/petition") || !strings.Contains(plain, `data-cf-form="petition"`) || !strings.Contains(plain, `<option>South</option>`) {
		t.Errorf("snippets: %q / %q", iframe, plain)
	}
	if got := u.texts("arriving-field"); len(got) != 2 || !strings.Contains(got[0], "Not personal") || u.count("arriving-undeclared") != 1 {
		t.Errorf("after declaring region: %q; want region declared, notes not", got)
	}
	href := u.attr("form-preview", "href")
	u.do(chromedp.EmulateViewport(1280, 900))
	u.shot("admin-form-editor-1280")
	wantStatus(t, "preview", u.open(strings.TrimPrefix(href, s.LinkBase)), 200)
	order, err := chromedp.Run(u.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid^="field-"]')].map(e => e.dataset.testid)`))
	if err != nil || strings.Join(order, ",") != "field-region,field-email" {
		t.Errorf("hosted page fields %v, %v", order, err)
	}
	if got := u.text("field-region"); !strings.Contains(got, "Your region") || !strings.Contains(got, "Where you live.") || !strings.Contains(got, "South") {
		t.Errorf("the select field shows %q", got)
	}
}
