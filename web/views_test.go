package web

import (
	"strings"
	"testing"
)

func TestLoginForm(t *testing.T) {
	doc, html := render(t, samplePages()["login"])
	f := mustOne(t, doc, "login-form")
	if f.AttrOr("method", "") != "post" || f.AttrOr("action", "") != PathLogin {
		t.Errorf("login form posts %q to %q", f.AttrOr("method", ""), f.AttrOr("action", ""))
	}
	for name, typ := range map[string]string{"email": "email", "password": "password", "_csrf": "hidden"} {
		in := f.Find(`input[name="` + name + `"]`)
		if in.Length() != 1 || in.AttrOr("type", "") != typ {
			t.Errorf("input %s: %d of type %q", name, in.Length(), in.AttrOr("type", ""))
		}
	}
	if v := f.Find(`input[name="email"]`).AttrOr("value", ""); v != "admin@example.org" {
		t.Errorf("email not re-filled: %q", v)
	}
	if v := f.Find(`input[name="password"]`).AttrOr("value", ""); v != "" {
		t.Errorf("password echoed: %q", v)
	}
	if got := mustOne(t, doc, "error-password").Text(); got != "Enter your password." {
		t.Errorf("password error %q", got)
	}
	if strings.Contains(html, "hx-post") {
		t.Errorf("login must be a full page load")
	}
}

func TestMasking(t *testing.T) {
	cases := []struct {
		fn       func(string) string
		in, want string
	}{
		{MaskEmail, "jane.doe@example.org", "j***@e***.org"},
		{MaskEmail, "J@x.io", "J***@x***.io"},
		{MaskEmail, "jane@mail.janedoe.name", "j***@m***.name"},
		{MaskEmail, "root@localhost", "r***@l***"},
		{MaskEmail, "", ""},
		{MaskEmail, "no-at-sign", "n***"},
		{MaskPhone, "+4915112345678", "+49******78"},
		{MaskPhone, "+1234567", "+12******67"},
		{MaskPhone, "+12345", "+******"},
		{MaskPhone, "", ""},
		{MaskText, "Élodie", "É***"},
	}
	for _, c := range cases {
		if got := c.fn(c.in); got != c.want {
			t.Errorf("mask(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSubmissionsListMasksContact(t *testing.T) {
	doc, html := render(t, samplePages()["submissions"])
	if strings.Contains(html, fullMail) || strings.Contains(html, fullTel) || strings.Contains(html, "jane.doe") {
		t.Fatalf("list leaks full e-mail or phone")
	}
	if got := mustOne(t, doc, "submission-email").Text(); got != "j***@e***.org" {
		t.Errorf("masked e-mail %q", got)
	}
	if got := mustOne(t, doc, "submission-phone").Text(); got != "+49******78" {
		t.Errorf("masked phone %q", got)
	}
	if got := mustOne(t, doc, "submission-consent-generalContactEmail").AttrOr("data-status", ""); got != StatusRevoked {
		t.Errorf("badge status %q", got)
	}
	if got := mustOne(t, doc, "submission-link").AttrOr("href", ""); got != "/admin/submissions/sub-1" {
		t.Errorf("detail link %q", got)
	}
	prev := mustOne(t, doc, "pager-prev").AttrOr("href", "")
	next := mustOne(t, doc, "pager-next").AttrOr("href", "")
	if prev != "/admin/submissions?cursor=bjE&form=newsletter&status=granted" || next != "/admin/submissions?cursor=bzI&form=newsletter&status=granted" {
		t.Errorf("pager links %q %q", prev, next)
	}
	if doc.Find(`#results [data-testid="pager"]`).Length() != 1 {
		t.Errorf("pager must sit inside the htmx results region")
	}
	if got := doc.Find(`select[name="status"] option[selected]`).AttrOr("value", ""); got != StatusGranted {
		t.Errorf("status filter selection %q", got)
	}
}

func TestSubmissionDetailMasksUnlessAllowed(t *testing.T) {
	secrets := []string{fullMail, fullTel, "Doevalley", "Hauptstraße", "10115", "203.0.113.7", "1990-01-01"}
	doc, html := render(t, samplePages()["submission"])
	for _, s := range secrets {
		if strings.Contains(html, s) {
			t.Errorf("masked detail leaks %q", s)
		}
	}
	mustOne(t, doc, "personal-masked-note")
	if got := mustOne(t, doc, "contact-email").Text(); got != "j***@e***.org" {
		t.Errorf("masked e-mail %q", got)
	}
	if got := byID(doc, "payload-row").Filter(`[data-key="favourite_colour"]`).Find(`[data-testid="payload-value"]`).Text(); got != "green" {
		t.Errorf("non-personal payload %q", got)
	}
	if got := byID(doc, "consent-generalContactEmail-status").AttrOr("data-status", ""); got != StatusRevoked {
		t.Errorf("consent status %q", got)
	}
	if got := mustOne(t, doc, "consent-primaryPurpose-deadline").Text(); got != "Until revoked" {
		t.Errorf("deadline %q", got)
	}
	if got := mustOne(t, doc, "consent-primaryPurpose-source").Text(); got != "website" {
		t.Errorf("source %q", got)
	}

	doc, html = render(t, Submission(SubmissionPage{Layout: testLayout("x", ""), Submission: sampleSubmission(), ShowPersonal: true}))
	for _, s := range secrets {
		if !strings.Contains(html, s) {
			t.Errorf("allowed detail hides %q", s)
		}
	}
	if byID(doc, "personal-masked-note").Length() != 0 {
		t.Errorf("note shown to an allowed viewer")
	}
}

func TestKeysPlaintextOnlyOnIssuedPage(t *testing.T) {
	doc, html := render(t, samplePages()["keys"])
	if byID(doc, "api-key-plaintext").Length() != 0 || strings.Contains(html, "SECRET") {
		t.Errorf("keys list shows a plaintext")
	}
	if n := byID(doc, "key-row").Length(); n != 3 {
		t.Errorf("%d key rows", n)
	}
	if n := byID(doc, "key-revoke").Length(); n != 2 {
		t.Errorf("%d revoke buttons, want 2 (not for the revoked key)", n)
	}
	form := byID(doc, "key-revoke-form").First()
	if form.AttrOr("action", "") != "/admin/keys/k1/revoke" || form.AttrOr("hx-confirm", "") == "" {
		t.Errorf("revoke form %q", form.AttrOr("action", ""))
	}
	mustOne(t, doc, "key-revoked")
	if got := byID(doc, "key-row").Eq(2).Find(".badge").Text(); got != "Expired" {
		t.Errorf("expired key shows %q", got)
	}
	scopes := doc.Find(`[data-testid="key-issue-form"] input[type="checkbox"][name="scope"]`)
	if scopes.Length() != 7 {
		t.Errorf("%d scope checkboxes", scopes.Length())
	}
	if doc.Find(`input[name="scope"][value="records:write"]`).AttrOr("checked", "x") == "x" {
		t.Errorf("chosen scope not re-checked")
	}
	if doc.Find(`input[name="expires"]`).AttrOr("type", "") != "date" {
		t.Errorf("expiry is not a date input")
	}

	doc, _ = render(t, samplePages()["key-issued"])
	if got := mustOne(t, doc, "api-key-plaintext").Text(); got != "cf_k1_SECRETSECRETSECRET" {
		t.Errorf("plaintext %q", got)
	}
	mustOne(t, doc, "api-key-copy-hint")

	doc, _ = render(t, Keys(KeysPage{Layout: testLayout("API keys", NavKeys), Keys: []KeyItem{{ID: "k1"}}}))
	if byID(doc, "key-issue-form").Length() != 0 || byID(doc, "key-revoke").Length() != 0 {
		t.Errorf("read-only keys page offers actions")
	}
}

func TestWebhookCredentials(t *testing.T) {
	doc, _ := render(t, samplePages()["webhooks"])
	if n := byID(doc, "mailchimp-token-row").Length(); n != 2 {
		t.Errorf("%d token rows", n)
	}
	if n := byID(doc, "mailchimp-token-revoke").Length(); n != 1 {
		t.Errorf("%d revoke buttons", n)
	}
	mustOne(t, doc, "mailchimp-token-issue-form")
	if doc.Find(`[data-testid="sendgrid-key-form"] textarea[name="public_key"]`).Length() != 1 {
		t.Errorf("no key textarea")
	}
	mustOne(t, doc, "sendgrid-key-clear-form")

	doc, _ = render(t, samplePages()["webhook-token-issued"])
	if got := mustOne(t, doc, "mailchimp-token-url").Text(); !strings.HasSuffix(got, "?token=mct_t1_TOKENTOKEN") {
		t.Errorf("token URL %q", got)
	}
}

func TestFormEdit(t *testing.T) {
	doc, _ := render(t, samplePages()["form-edit"])
	f := mustOne(t, doc, "form-edit-form")
	if f.AttrOr("action", "") != "/admin/forms/newsletter" {
		t.Errorf("action %q", f.AttrOr("action", ""))
	}
	if _, ok := f.Find(`input[name="form_id"]`).Attr("readonly"); !ok {
		t.Errorf("form id editable on an existing form")
	}
	rows := byID(doc, "custom-field-row")
	if rows.Length() != 2+blankFieldRows {
		t.Errorf("%d field rows", rows.Length())
	}
	if f.Find(`input[name="field_count"]`).AttrOr("value", "") != "5" {
		t.Errorf("field_count")
	}
	if _, ok := f.Find(`input[name="field.0.personal"]`).Attr("checked"); !ok {
		t.Errorf("personal flag not checked")
	}
	if f.Find(`select[name="field.1.type"] option[selected]`).AttrOr("value", "") != FieldChoice {
		t.Errorf("field type not selected")
	}
	if f.Find(`select[name="field.0.type"] option`).Length() != len(FieldTypeOptions()) {
		t.Errorf("want every field type")
	}
	mustOne(t, doc, "error-field-1-name")
	for _, p := range []string{"brevo", "mailchimp", "sendgrid", "mailjet", "postmark"} {
		url := mustOne(t, doc, "webhook-url-"+p).Text()
		if !strings.HasPrefix(url, "https://consent.example.org/api/v1/"+p+"/unsubscribe") {
			t.Errorf("%s URL %q", p, url)
		}
		if mustOne(t, doc, "webhook-hint-"+p).Text() == "" {
			t.Errorf("%s has no hint", p)
		}
	}

	doc, _ = render(t, samplePages()["form-new"])
	if got := mustOne(t, doc, "form-edit-form").AttrOr("action", ""); got != PathForms {
		t.Errorf("new form posts to %q", got)
	}
	if byID(doc, "provider-webhooks").Length() != 0 {
		t.Errorf("webhooks on a new form")
	}

	doc, _ = render(t, FormEdit(FormEditPage{Layout: testLayout("x", ""), Form: FormInput{ID: "f", Fields: []CustomField{{Name: "a"}}}}))
	if byID(doc, "form-edit-form").Length() != 0 || byID(doc, "form-definition").Length() != 1 {
		t.Errorf("read-only form page offers editing")
	}
}

func TestAnonymiseSteps(t *testing.T) {
	doc, _ := render(t, samplePages()["anonymise-search"])
	f := mustOne(t, doc, "anonymise-search-form")
	if f.AttrOr("action", "") != PathAnonymisePreview || f.Find(`input[name="email"]`).Length() != 1 || f.Find(`input[name="phone"]`).Length() != 1 {
		t.Errorf("step 1 form")
	}
	mustOne(t, doc, "error-email")

	doc, _ = render(t, samplePages()["anonymise-preview"])
	want := map[string]string{"formSubmissions": "2", "digitisationSubmissions": "0", "canvassingSubmissions": "0", "phoneCallTasks": "1"}
	for k, v := range want {
		if got := mustOne(t, doc, "anonymise-preview-count-"+k).Text(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	f = mustOne(t, doc, "anonymise-confirm-form")
	if f.AttrOr("action", "") != PathAnonymise || f.Find(`input[name="confirm"]`).Length() != 1 ||
		f.Find(`input[type="hidden"][name="email"]`).AttrOr("value", "") != fullMail {
		t.Errorf("confirm form")
	}
	if !strings.Contains(doc.Find(`label[for="confirm"]`).Text(), "ERASE") {
		t.Errorf("confirm label does not name the word")
	}

	doc, _ = render(t, AnonymisePreview(AnonymisePreviewPage{Layout: testLayout("x", ""), Email: fullMail}))
	if byID(doc, "anonymise-confirm-form").Length() != 0 {
		t.Errorf("confirmation offered with nothing to anonymise")
	}
	mustOne(t, doc, "anonymise-nothing")

	doc, _ = render(t, samplePages()["anonymise-result"])
	if got := mustOne(t, doc, "anonymise-result-count-phoneCallTasks").Text(); got != "1" {
		t.Errorf("result count %q", got)
	}
	if got := mustOne(t, doc, "anonymise-result-total").Text(); got != "3 records anonymised." {
		t.Errorf("total %q", got)
	}
}

func TestUnsubscribeResult(t *testing.T) {
	doc, _ := render(t, samplePages()["unsubscribe"])
	if got := strings.Join(strings.Fields(mustOne(t, doc, "unsubscribe-result").Text()), " "); got != "3 revoked" {
		t.Errorf("result %q", got)
	}
	doc, _ = render(t, Unsubscribe(UnsubscribePage{Layout: testLayout("x", "")}))
	if byID(doc, "unsubscribe-result").Length() != 0 {
		t.Errorf("result shown before submitting")
	}
}

func TestTenantsAndStaff(t *testing.T) {
	doc, _ := render(t, samplePages()["tenants"])
	if n := byID(doc, "tenant-row").Length(); n != 2 {
		t.Errorf("%d tenant rows", n)
	}
	if doc.Find(`input[name="rate_limit"]`).AttrOr("value", "") != "zero" {
		t.Errorf("rate limit input not re-filled")
	}
	mustOne(t, doc, "error-rate_limit")

	doc, _ = render(t, samplePages()["staff"])
	f := mustOne(t, doc, "staff-create-form")
	for _, n := range []string{"email", "password", "role", "tenant"} {
		if f.Find(`[name="`+n+`"]`).Length() != 1 {
			t.Errorf("staff form lacks %s", n)
		}
	}
	if f.Find(`select[name="role"] option`).Length() != 4 {
		t.Errorf("role options")
	}
	doc, _ = render(t, Staff(StaffPage{Layout: testLayout("x", ""), CanManage: true, Roles: []string{"support"}}))
	if doc.Find(`select[name="tenant"]`).Length() != 0 {
		t.Errorf("tenant select shown without tenants")
	}
}

func TestDashboard(t *testing.T) {
	doc, _ := render(t, samplePages()["dashboard"])
	if got := mustOne(t, doc, "dashboard-count-phoneCallTasks").Text(); got != "7" {
		t.Errorf("count %q", got)
	}
	if got := mustOne(t, doc, "dashboard-consent-primaryPurpose-granted").Text(); got != "10" {
		t.Errorf("granted %q", got)
	}
	if n := byID(doc, "audit-row").Length(); n != 3 {
		t.Errorf("recent activity rows %d", n)
	}
}

func TestValuesAreEscaped(t *testing.T) {
	evil := `"><script>alert(1)</script>`
	html := renderHTML(t, Forms(FormsPage{Layout: testLayout(evil, ""), Forms: []FormItem{{ID: evil, Name: evil}}}))
	if strings.Contains(html, "<script>alert") {
		t.Errorf("unescaped value in output")
	}
}
