package anonymise

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current Strip")

// goldenNow is the anonymisation time of every golden case.
var goldenNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// goldenCases name testdata/<name>.input.json and .golden.json. personal lists input
// strings beyond contact, address, consent IPs and identifiers (which are checked
// anyway) that must not survive; kept lists strings that must.
var goldenCases = []struct {
	name     string
	declared map[string]bool
	personal []string
	kept     []string
}{
	{
		name:     "form_submission_full",
		personal: []string{"Lindenallee", "Doerington"},
		kept:     []string{"climate", "air quality", "weekly", "spring-2025", "standard", `"DE"`, "website petition form", "2025-02-10T09:29:58Z", "brevo", "2026-02-10T09:30:00Z"},
	},
	{
		name:     "alternate_shapes",
		personal: []string{"Quillmore", "Springfield", "62704", `"IL"`, "555-0147", "+12175550147"},
		kept:     []string{"general_contact", "event_reminders", "90d", `"country": "US"`, "ticket_type"},
	},
	{
		name:     "digitisation",
		personal: []string{"H. Brandtner"},
		kept:     []string{"SCAN-2024-11-0931", "staff-0012", "market day", "paper form, scanned"},
	},
	{
		name:     "canvassing",
		personal: []string{"two dogs", "neighbour", "Priya"},
		kept:     []string{"cnv-044", "2025-02-12T16:40:00Z", "supportive", "Headingley", "parking", `"expired"`},
	},
	{
		name:     "phone_call_task",
		personal: []string{"called back", "42 68 53 00", "+33142685300"},
		kept:     []string{"camp-spring", "caller-8", "completed", "callback_requested", "2025-02-15T09:00:00Z", "2025-02-15T09:03:12Z", "script_version"},
	},
	{
		name:     "hidden_identifiers",
		personal: []string{"+4915112345678", "team.lead@example.com", "+44 20 7946 0958", "sam.k+events@example.org", "r.naidoo@example.org", "10.20.30.40", "198.51.100.23"},
		kept:     []string{"buddy", "weekday evenings", "vegetarian", "partner.example/landing", "event signup page", `"M"`, `"extras": {}`},
	},
	{
		name:     "declared_personal",
		declared: map[string]bool{"membership_number": true, "employer": false},
		personal: []string{"MBR-2024-004217", "Membership_Number"},
		kept:     []string{"Fjordline Shipping AS", "gold", "monthly_fee"},
	},
	{
		name: "already_anonymised",
		kept: []string{"transport", "2025-02-01T00:00:00Z", "mailjet", "preferences"},
	},
}

func TestStripGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			in := loadRecord(t, filepath.Join("testdata", c.name+".input.json"))
			got := render(t, Strip(in, c.declared, goldenNow))
			path := filepath.Join("testdata", c.name+".golden.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Strip output differs from %s (go test -update rewrites it):\n%s", path, got)
			}
		})
	}
}

// TestGoldenHoldsNoPersonalData checks the golden files themselves, so that an -update
// cannot quietly accept a leak.
func TestGoldenHoldsNoPersonalData(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			in := loadRecord(t, filepath.Join("testdata", c.name+".input.json"))
			golden, err := os.ReadFile(filepath.Join("testdata", c.name+".golden.json"))
			if err != nil {
				t.Fatal(err)
			}
			lower := bytes.ToLower(golden)
			for _, s := range personalStrings(in, c.personal) {
				if bytes.Contains(lower, bytes.ToLower([]byte(s))) {
					t.Errorf("golden output holds personal string %q", s)
				}
			}
			for _, s := range c.kept {
				if !bytes.Contains(golden, []byte(s)) {
					t.Errorf("golden output lost non-personal string %q", s)
				}
			}
		})
	}
}

func TestStripIsIdempotent(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			in := loadRecord(t, filepath.Join("testdata", c.name+".input.json"))
			once := Strip(in, c.declared, goldenNow)
			twice := Strip(once, c.declared, goldenNow.Add(24*time.Hour))
			if a, b := render(t, once), render(t, twice); !bytes.Equal(a, b) {
				t.Errorf("second Strip changed the record:\n%s\nwant\n%s", b, a)
			}
			if in.AnonymisedAt != nil {
				// The input was itself stripped earlier: nothing may change, the time included.
				if a, b := render(t, in), render(t, once); !bytes.Equal(a, b) {
					t.Errorf("Strip changed an anonymised record:\n%s\nwant\n%s", b, a)
				}
			}
		})
	}
}

func TestStripLeavesInputUntouched(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			in := loadRecord(t, filepath.Join("testdata", c.name+".input.json"))
			before := render(t, in)
			out := Strip(in, c.declared, goldenNow)
			if !bytes.Equal(render(t, in), before) {
				t.Fatal("Strip modified its input")
			}
			// The copy shares nothing: changing it leaves the input alone.
			mutate(out.Payload)
			mutate(out.Fields)
			if out.AnonymisedAt != nil {
				*out.AnonymisedAt = time.Time{}
			}
			if out.Consents.PrimaryPurpose.GrantedAt != nil {
				*out.Consents.PrimaryPurpose.GrantedAt = time.Time{}
			}
			if !bytes.Equal(render(t, in), before) {
				t.Fatal("the output of Strip shares memory with its input")
			}
		})
	}
}

func mutate(v any) {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return
		}
		for k, e := range x {
			mutate(e)
			x[k] = "changed"
		}
		x["added"] = true
	case []any:
		for i, e := range x {
			mutate(e)
			x[i] = "changed"
		}
	}
}

// TestRecordShape fails when tenants.Record gains a field: Strip drops unknown fields, so
// decide whether the new one is personal, then update Strip, recordView and this count.
func TestRecordShape(t *testing.T) {
	if n := reflect.TypeFor[tenants.Record]().NumField(); n != 13 {
		t.Errorf("tenants.Record has %d fields, Strip was written for 13", n)
	}
	if n := reflect.TypeFor[tenants.Consent]().NumField(); n != 11 {
		t.Errorf("tenants.Consent has %d fields, Strip was written for 11", n)
	}
}

// TestStripKeepsNoticeVersion: the notice version a consent was given under is no personal
// data and is what the receipt proves after erasure, so stripping keeps it.
func TestStripKeepsNoticeVersion(t *testing.T) {
	ref := &tenants.TextRef{Version: "ct_1", Hash: tenants.HashText("I agree."), Language: "en"}
	ip := "192.0.2.7"
	rec := tenants.Record{Consents: tenants.Consents{PrimaryPurpose: tenants.Consent{Status: tenants.StatusGranted, IPAddress: &ip, Text: ref}}}
	got := stripConsent(rec.Consents.PrimaryPurpose, "")
	if got.Text == nil || *got.Text != *ref || got.IPAddress != nil {
		t.Errorf("stripped consent = %+v, want the text reference kept and the IP address gone", got)
	}
}

// personalStrings lists what must not appear in a stripped rendering of in: its contact,
// address and consent IP values, the identifiers in raw and normalised form, and extra.
func personalStrings(in tenants.Record, extra []string) []string {
	out := append([]string(nil), extra...)
	for _, p := range []*string{
		in.Contact.Email, in.Contact.PhoneNumber, in.Contact.FirstName, in.Contact.LastName,
		in.Contact.NamePrefix, in.Address.Street, in.Address.HouseNumber, in.Address.City,
		in.Address.Postcode, in.Consents.PrimaryPurpose.IPAddress,
		in.Consents.GeneralContactEmail.IPAddress, in.Consents.GeneralContactPhone.IPAddress,
	} {
		if p != nil && len(*p) > 0 {
			out = append(out, quoteIfShort(*p))
		}
	}
	ids := Identifiers(in, "")
	out = append(out, ids.Emails...)
	out = append(out, ids.Phones...)
	out = append(out, ids.MentionedEmails...)
	out = append(out, ids.MentionedPhones...)
	return append(out, in.MatchKeys...)
}

// quoteIfShort matches short values ("7", "Dr.") as whole JSON strings so that they are
// not found inside kept timestamps or ids.
func quoteIfShort(s string) string {
	if len(s) < 5 {
		return `"` + s + `"`
	}
	return s
}
