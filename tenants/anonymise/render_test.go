package anonymise

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// recordView is the JSON rendering of a tenants.Record used by the golden files. Record
// has no JSON tags and hides the consent proof from JSON, so the view spells out every
// field, proof included, to show what Strip keeps and removes.
type recordView struct {
	ID           string          `json:"id"`
	TenantID     string          `json:"tenantId"`
	Kind         tenants.Kind    `json:"kind"`
	PublicID     string          `json:"publicId"`
	FormID       string          `json:"formId"`
	CreatedAt    time.Time       `json:"createdAt"`
	Contact      tenants.Contact `json:"contact"`
	Address      tenants.Address `json:"address"`
	Consents     consentsView    `json:"consents"`
	Payload      map[string]any  `json:"payload"`
	Fields       map[string]any  `json:"fields"`
	MatchKeys    []string        `json:"matchKeys"`
	AnonymisedAt *time.Time      `json:"anonymisedAt"`
}

type consentsView struct {
	PrimaryPurpose      consentView `json:"primaryPurpose"`
	GeneralContactEmail consentView `json:"generalContactEmail"`
	GeneralContactPhone consentView `json:"generalContactPhone"`
}

type consentView struct {
	Status       tenants.ConsentStatus `json:"status"`
	GrantedAt    *time.Time            `json:"grantedAt"`
	Deadline     *time.Time            `json:"deadline"`
	RevokedAt    *time.Time            `json:"revokedAt"`
	RevokedBy    string                `json:"revokedBy"`
	Source       *string               `json:"source"`
	IPAddress    *string               `json:"ipAddress"`
	Timestamp    *string               `json:"timestamp"`
	Text         *tenants.TextRef      `json:"text,omitempty"`
	ConfirmBy    *time.Time            `json:"confirmBy,omitempty"`
	Confirmation *tenants.Confirmation `json:"confirmation,omitempty"`
}

func toConsentView(c tenants.Consent) consentView { return consentView(c) }

func fromConsentView(c consentView) tenants.Consent { return tenants.Consent(c) }

// loadRecord reads a testdata input rendering into a Record.
func loadRecord(t *testing.T, path string) tenants.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v recordView
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return tenants.Record{
		ID: v.ID, TenantID: v.TenantID, Kind: v.Kind, PublicID: v.PublicID, FormID: v.FormID,
		CreatedAt: v.CreatedAt, Contact: v.Contact, Address: v.Address,
		Consents: tenants.Consents{
			PrimaryPurpose:      fromConsentView(v.Consents.PrimaryPurpose),
			GeneralContactEmail: fromConsentView(v.Consents.GeneralContactEmail),
			GeneralContactPhone: fromConsentView(v.Consents.GeneralContactPhone),
		},
		Payload: v.Payload, Fields: v.Fields, MatchKeys: v.MatchKeys, AnonymisedAt: v.AnonymisedAt,
	}
}

// render marshals rec as indented JSON with every object's keys sorted.
func render(t *testing.T, rec tenants.Record) []byte {
	t.Helper()
	v := recordView{
		ID: rec.ID, TenantID: rec.TenantID, Kind: rec.Kind, PublicID: rec.PublicID, FormID: rec.FormID,
		CreatedAt: rec.CreatedAt, Contact: rec.Contact, Address: rec.Address,
		Consents: consentsView{
			PrimaryPurpose:      toConsentView(rec.Consents.PrimaryPurpose),
			GeneralContactEmail: toConsentView(rec.Consents.GeneralContactEmail),
			GeneralContactPhone: toConsentView(rec.Consents.GeneralContactPhone),
		},
		Payload: rec.Payload, Fields: rec.Fields, MatchKeys: rec.MatchKeys, AnonymisedAt: rec.AnonymisedAt,
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	// A round trip through any sorts the struct's keys as well as the maps'.
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(generic); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
