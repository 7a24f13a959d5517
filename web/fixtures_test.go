package web

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
)

const testCSRF = "csrf-token-123"

var (
	t0       = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	t1       = t0.Add(48 * time.Hour)
	fullMail = "jane.doe@example.org"
	fullTel  = "+4915112345678"
)

func testLayout(title, active string) Layout {
	return Layout{
		Title: title,
		User:  &User{Name: "Jane Admin", Email: "admin@example.org", Role: "tenant_admin", TenantName: "Acme"},
		Nav:   BuildNav(active, nil),
		CSRF:  testCSRF,
	}
}

func sampleSubmission() SubmissionDetail {
	return SubmissionDetail{
		Kind: KindFormSubmission, ID: "sub-1", FormID: "newsletter", CreatedAt: t0,
		Contact: ContactView{Email: fullMail, PhoneNumber: fullTel, FirstName: "Jane", LastName: "Doevalley"},
		Address: AddressView{Street: "Hauptstraße", HouseNumber: "12a", City: "Berlin", Postcode: "10115"},
		Consents: ConsentRows{
			PrimaryPurpose:      ConsentRow{Status: StatusGranted, GrantedAt: &t0, Source: "website", Timestamp: "2025-03-14T09:26:00Z", IPAddress: "203.0.113.7"},
			GeneralContactEmail: ConsentRow{Status: StatusRevoked, GrantedAt: &t0, RevokedAt: &t1},
			GeneralContactPhone: ConsentRow{Status: StatusExpired, GrantedAt: &t0, Deadline: &t1},
		},
		Payload: PayloadFields(map[string]any{"favourite_colour": "green", "birthday": "1990-01-01", "age": float64(34)},
			func(k string, _ any) bool { return k == "birthday" }),
	}
}

// samplePages renders every page with a representative model, keyed by a short name.
func samplePages() map[string]templ.Component {
	keys := []KeyItem{
		{ID: "k1", Name: "Website", Prefix: "cf_k1", Scopes: []string{ScopeSubmissionsWrite}, CreatedAt: t0, LastUsedAt: &t1},
		{ID: "k2", Name: "Old", Prefix: "cf_k2", Scopes: []string{ScopeAll}, CreatedAt: t0, RevokedAt: &t1},
		{ID: "k3", Name: "Expiring", Prefix: "cf_k3", Scopes: []string{ScopeGDPRAnonymise, ScopeSubmissionsRead}, CreatedAt: t0, ExpiresAt: &t0},
	}
	audit := []AuditEntry{
		{Time: t0, Actor: Actor{ID: "key:k1", Label: "API key “Website”"}, Action: "submission.accepted",
			Records: []RecordRef{{ID: "sub-1", Href: SubmissionPath("sub-1")}}, Counts: map[string]int{"formSubmissions": 1}, RequestID: "req-1"},
		{Time: t0, Actor: Actor{ID: "key:k1", Label: "API key “Website”"}, Action: "consent.granted",
			Detail: "primary purpose, general contact by e-mail", Records: []RecordRef{{ID: "sub-1", Href: RecordPath("", "sub-1")}}},
		{Time: t1, Actor: Actor{ID: "staff:u1", Label: "j***@example.org"}, Action: "gdpr.anonymised",
			Records: []RecordRef{{ID: "r1"}, {ID: "r2"}, {ID: "r3"}, {ID: "r4"}, {ID: "r5"}},
			Counts:  map[string]int{"formSubmissions": 2, "phoneCallTasks": 1, "canvassingSubmissions": 0}, RequestID: "req-2"},
	}
	return map[string]templ.Component{
		"login": Login(LoginPage{Layout: Layout{Title: "Sign in", CSRF: testCSRF}, Email: "admin@example.org",
			Errors: FieldErrors{"password": "Enter your password."}}),
		"dashboard": Dashboard(DashboardPage{Layout: testLayout("Dashboard", NavDashboard),
			Records:  RecordCounts{FormSubmissions: 12, DigitisationSubmissions: 3, CanvassingSubmissions: 2, PhoneCallTasks: 7},
			Consents: ConsentCounts{PrimaryPurpose: StatusCounts{Granted: 10, Expired: 1, Revoked: 1}},
			Recent:   audit}),
		"forms": Forms(FormsPage{Layout: testLayout("Forms", NavForms), CanEdit: true,
			Forms: []FormItem{{ID: "newsletter", Name: "Newsletter", Open: true, FieldCount: 2, CreatedAt: t0}, {ID: "petition", Open: false}}}),
		"form-edit": FormEdit(FormEditPage{Layout: testLayout("Edit form", NavForms), CanEdit: true,
			Form:     FormInput{ID: "newsletter", Name: "Newsletter", Open: true, Fields: []CustomField{{Name: "birthday", Type: FieldDate, Personal: true}, {Name: "colour", Type: FieldChoice}}},
			Errors:   FieldErrors{"field.1.name": "Names must be unique."},
			Webhooks: ProviderWebhooks("https://consent.example.org/")}),
		"form-new": FormEdit(FormEditPage{Layout: testLayout("New form", NavForms), New: true, CanEdit: true}),
		"keys": Keys(KeysPage{Layout: testLayout("API keys", NavKeys), Keys: keys, CanManage: true, Now: t1,
			Form: KeyInput{Name: "CRM", Scopes: []string{ScopeRecordsWrite}}, Errors: FieldErrors{"expires": "Pick a future date."}}),
		"key-issued": KeyIssued(KeyIssuedPage{Layout: testLayout("API key issued", NavKeys), Key: keys[0], Plaintext: "cf_k1_SECRETSECRETSECRET"}),
		"webhooks": Webhooks(WebhooksPage{Layout: testLayout("Webhook credentials", NavWebhooks), CanManage: true, SendGridKeySaved: true,
			SendGridKey:     "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE",
			MailchimpTokens: []WebhookTokenItem{{ID: "t1", Name: "Main audience", Prefix: "mct_t1", CreatedAt: t0}, {ID: "t2", Prefix: "mct_t2", CreatedAt: t0, RevokedAt: &t1}}}),
		"webhook-token-issued": WebhookTokenIssued(WebhookTokenIssuedPage{Layout: testLayout("Mailchimp token issued", NavWebhooks),
			Token: "mct_t1_TOKENTOKEN", URL: "https://consent.example.org/api/v1/mailchimp/unsubscribe?token=mct_t1_TOKENTOKEN"}),
		"submissions": Submissions(SubmissionsPage{Layout: testLayout("Submissions", NavSubmissions),
			Filter: SubmissionFilter{FormID: "newsletter", Status: StatusGranted},
			Forms:  []Option{{Value: "newsletter", Label: "Newsletter"}, {Value: "petition", Label: "Petition"}},
			Items: []SubmissionItem{{ID: "sub-1", FormID: "newsletter", CreatedAt: t0, Email: fullMail, Phone: fullTel,
				PrimaryPurpose: StatusGranted, GeneralContactEmail: StatusRevoked, GeneralContactPhone: StatusNotGranted}},
			Pager: Pager{Newer: SubmissionFilter{FormID: "newsletter", Status: StatusGranted}.URL("bjE"),
				Older: SubmissionFilter{FormID: "newsletter", Status: StatusGranted}.URL("bzI")}, CanFind: true}),
		"find-person": FindPerson(FindPersonPage{Layout: testLayout("Find a person", NavSubmissions), Email: fullMail,
			Searched: true, CanAnonymise: true, Counts: RecordCounts{FormSubmissions: 1, PhoneCallTasks: 1},
			Records: []PersonRecord{
				{Kind: KindPhoneCallTask, ID: "call-1", CreatedAt: t1},
				{Kind: KindFormSubmission, ID: "sub-1", FormID: "newsletter", CreatedAt: t0, PrimaryPurpose: StatusGranted,
					GeneralContactEmail: StatusRevoked, GeneralContactPhone: StatusNotGranted, AnonymisedAt: &t1},
			}}),
		"submission": Submission(SubmissionPage{Layout: testLayout("Submission sub-1", NavSubmissions), Submission: sampleSubmission()}),
		"anonymise-search": AnonymiseSearch(AnonymiseSearchPage{Layout: testLayout("Anonymise", NavAnonymise),
			Errors: FieldErrors{"email": "Give an e-mail address or a phone number."}}),
		"anonymise-preview": AnonymisePreview(AnonymisePreviewPage{Layout: testLayout("Anonymise", NavAnonymise), Email: fullMail,
			Counts: RecordCounts{FormSubmissions: 2, PhoneCallTasks: 1}}),
		"anonymise-result": AnonymiseResult(AnonymiseResultPage{Layout: testLayout("Anonymise", NavAnonymise), Counts: RecordCounts{FormSubmissions: 2, PhoneCallTasks: 1}}),
		"unsubscribe":      Unsubscribe(UnsubscribePage{Layout: testLayout("Unsubscribe", NavUnsubscribe), Email: fullMail, Result: &UnsubscribeResult{Revoked: 3}}),
		"audit": Audit(AuditPage{Layout: testLayout("Audit log", NavAudit), Entries: audit,
			Pager:   Pager{Older: AuditFilter{Action: "gdpr.anonymised", From: "2025-03-01"}.URL("bzI")},
			Filter:  AuditFilter{Action: "gdpr.anonymised", From: "2025-03-01"},
			Actions: []string{"submission.accepted", "gdpr.anonymised", "apikey.issued"}}),
		"tenants": Tenants(TenantsPage{Layout: testLayout("Tenants", NavTenants),
			Tenants: []TenantItem{{ID: "t-acme", Name: "Acme", RateLimit: 50, CreatedAt: t0}, {ID: "t-old", Name: "Old", Suspended: true, CreatedAt: t0}},
			Errors:  FieldErrors{"rate_limit": "Must be a whole number of at least 1."}, Form: TenantInput{RateLimit: "zero"}}),
		"staff": Staff(StaffPage{Layout: testLayout("Staff", NavStaff), CanManage: true,
			Staff:   []StaffItem{{ID: "u1", Email: "admin@example.org", Role: "platform_admin", CreatedAt: t0, LastLoginAt: &t1}, {ID: "u2", Email: "sup@example.org", Role: "support", TenantName: "Acme", CreatedAt: t0}},
			Roles:   []string{"platform_admin", "tenant_admin", "support", "viewer"},
			Tenants: []Option{{Value: "t-acme", Label: "Acme"}}, Form: StaffInput{Role: "support", TenantID: "t-acme"}}),
		"error":     Error(ErrorPage{Layout: testLayout("Not found", ""), Status: 404, RequestID: "req-9"}),
		"forbidden": Forbidden(ErrorPage{Layout: testLayout("Forbidden", ""), Status: 403}),
	}
}

func renderHTML(t *testing.T, c templ.Component) string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatalf("render: %v", err)
	}
	return buf.String()
}

func render(t *testing.T, c templ.Component) (*goquery.Document, string) {
	t.Helper()
	html := renderHTML(t, c)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return doc, html
}

// byID selects elements by data-testid.
func byID(doc *goquery.Document, id string) *goquery.Selection {
	return doc.Find(`[data-testid="` + id + `"]`)
}

func mustOne(t *testing.T, doc *goquery.Document, id string) *goquery.Selection {
	t.Helper()
	s := byID(doc, id)
	if s.Length() != 1 {
		t.Fatalf("data-testid=%q: found %d elements, want 1", id, s.Length())
	}
	return s
}
