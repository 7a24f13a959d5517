package api

import (
	"encoding/json"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// The JSON shapes of the API's answers (docs/API.md §5.5, §7): the cases in tenants/ops
// return plain structs, and these views name their fields on the wire. Where a view has the
// fields of the case's struct it is a conversion of it.

// consentView is one consent: status at the time read, and its times.
type consentView struct {
	Status    tenants.ConsentStatus `json:"status"`
	Deadline  *time.Time            `json:"deadline"`
	GrantedAt *time.Time            `json:"grantedAt"`
	RevokedAt *time.Time            `json:"revokedAt"`
	// Text is the consent text version the consent was given under (docs/API.md §12).
	Text *tenants.TextRef `json:"text,omitempty"`
}

// consentsView is a record's three consents.
type consentsView struct {
	PrimaryPurpose      consentView `json:"primaryPurpose"`
	GeneralContactEmail consentView `json:"generalContactEmail"`
	GeneralContactPhone consentView `json:"generalContactPhone"`
}

func viewConsents(c ops.ConsentsView) consentsView {
	return consentsView{consentView(c.PrimaryPurpose), consentView(c.GeneralContactEmail), consentView(c.GeneralContactPhone)}
}

// generalContactView is a person's general contact consents over all their records.
type generalContactView struct {
	Email tenants.ConsentStatus `json:"email"`
	Phone tenants.ConsentStatus `json:"phone"`
}

// submissionConsentsView is one submission in a consent lookup.
type submissionConsentsView struct {
	SubmissionID string       `json:"submissionId"`
	FormID       orNull       `json:"formId"`
	CreatedAt    time.Time    `json:"createdAt"`
	Consents     consentsView `json:"consents"`
}

// personConsentsView answers GET /api/v1/consents (docs/API.md §7.2).
type personConsentsView struct {
	GeneralContact generalContactView       `json:"generalContact"`
	Submissions    []submissionConsentsView `json:"submissions"`
}

func viewPersonConsents(p ops.PersonConsents) personConsentsView {
	v := personConsentsView{GeneralContact: generalContactView(p.GeneralContact), Submissions: make([]submissionConsentsView, len(p.Submissions))}
	for i, s := range p.Submissions {
		v.Submissions[i] = submissionConsentsView{SubmissionID: s.SubmissionID, FormID: orNull(s.FormID), CreatedAt: s.CreatedAt, Consents: viewConsents(s.Consents)}
	}
	return v
}

// recordView is one record in an access export: the read shape of a form submission
// (docs/API.md §7.1) plus the kind's own fields.
type recordView struct {
	submissionView
	Fields map[string]any `json:"fields"`
}

func viewRecords(rs []ops.RecordView) []recordView {
	out := make([]recordView, len(rs))
	for i, r := range rs {
		out[i] = recordView{submissionView{SubmissionID: r.SubmissionID, FormID: orNull(r.FormID), CreatedAt: r.CreatedAt, Contact: r.Contact,
			Address: r.Address, Consents: plainConsents(viewConsents(r.Consents)), Payload: r.Payload, AnonymisedAt: r.AnonymisedAt, WithdrawURL: r.WithdrawURL,
			PreferencesURL: r.PreferencesURL}, r.Fields}
	}
	return out
}

// personExportView is a person's data in one tenant (docs/API.md §5.5).
type personExportView struct {
	GeneratedAt time.Time `json:"generatedAt"`
	Subject     struct {
		Email       *string `json:"email"`
		PhoneNumber *string `json:"phoneNumber"`
	} `json:"subject"`
	GeneralContact generalContactView `json:"generalContact"`
	Records        struct {
		FormSubmissions         []recordView `json:"formSubmissions"`
		DigitisationSubmissions []recordView `json:"digitisationSubmissions"`
		CanvassingSubmissions   []recordView `json:"canvassingSubmissions"`
		PhoneCallTasks          []recordView `json:"phoneCallTasks"`
	} `json:"records"`
	// Receipts are the consent receipts of the form submissions (docs/API.md §12.3).
	Receipts []receiptView `json:"receipts"`
}

// ExportView is the JSON shape of a person's access export, which the admin UI's download
// shares with POST /api/v1/gdpr/export (package cmd hands it over).
func ExportView(e ops.PersonExport) any {
	v := personExportView{GeneratedAt: e.GeneratedAt, GeneralContact: generalContactView(e.GeneralContact)}
	v.Subject.Email, v.Subject.PhoneNumber = e.Subject.Email, e.Subject.PhoneNumber
	r := &v.Records
	r.FormSubmissions, r.DigitisationSubmissions = viewRecords(e.Records.FormSubmissions), viewRecords(e.Records.DigitisationSubmissions)
	r.CanvassingSubmissions, r.PhoneCallTasks = viewRecords(e.Records.CanvassingSubmissions), viewRecords(e.Records.PhoneCallTasks)
	v.Receipts = make([]receiptView, len(e.Receipts))
	for i, rc := range e.Receipts {
		v.Receipts[i] = viewReceipt(rc)
	}
	return v
}

// expiringItemView is one entry of the re-permission list (docs/API.md §7.3).
type expiringItemView struct {
	SubmissionID string       `json:"submissionId"`
	Kind         tenants.Kind `json:"kind"`
	FormID       orNull       `json:"formId"`
	Email        *string      `json:"email,omitempty"`
	PhoneNumber  *string      `json:"phoneNumber,omitempty"`
	FirstName    *string      `json:"firstName"`
	Deadline     time.Time    `json:"deadline"`
}

// expiringPageView is a page of the re-permission list; nextCursor is null on the last.
type expiringPageView struct {
	Items      []expiringItemView `json:"items"`
	NextCursor *string            `json:"nextCursor"`
}

func viewExpiring(p ops.ExpiringPage) expiringPageView {
	v := expiringPageView{Items: make([]expiringItemView, len(p.Items)), NextCursor: p.NextCursor}
	for i, it := range p.Items {
		v.Items[i] = expiringItemView{SubmissionID: it.SubmissionID, Kind: it.Kind, FormID: orNull(it.FormID), Email: it.Email,
			PhoneNumber: it.PhoneNumber, FirstName: it.FirstName, Deadline: it.Deadline}
	}
	return v
}

// orNull is a string the JSON shapes write as null when it is empty: a value that is absent
// (the form of a canvassing record) reads null, never "".
type orNull string

func (s orNull) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(s))
}
