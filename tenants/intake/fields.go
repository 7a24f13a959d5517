package intake

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
)

// Length limits of the kinds' own fields (docs/API.md §6): notes are free text, the rest bounded
// by maxField.
const (
	maxField = 1000
	maxText  = 10000
)

// checkStrings requires the named fields, when present, to be strings of at most maxField characters.
func checkStrings(fields map[string]any, names ...string) *tenants.Violation {
	for _, n := range names {
		if v := checkString(fields, n, maxField); v != nil {
			return v
		}
	}
	return nil
}

func checkString(fields map[string]any, name string, limit int) *tenants.Violation {
	v, ok := fields[name]
	if !ok || v == nil {
		return nil
	}
	s, isString := v.(string)
	if !isString || utf8.RuneCountInString(s) > limit {
		return &tenants.Violation{Field: name, Code: name + "_invalid", Message: fmt.Sprintf("%s must be a string of at most %d characters.", name, limit)}
	}
	return nil
}

func checkTime(fields map[string]any, name string) *tenants.Violation {
	v, ok := fields[name]
	if !ok || v == nil {
		return nil
	}
	if s, isString := v.(string); isString {
		if _, err := time.Parse(time.RFC3339, s); err == nil {
			return nil
		}
	}
	return &tenants.Violation{Field: name, Code: name + "_invalid", Message: name + " must be an RFC 3339 date-time."}
}

// checkCanvassing checks a canvassing record's own fields (docs/API.md §6.2).
func checkCanvassing(fields map[string]any) *tenants.Violation {
	if v := checkStrings(fields, "canvasser_id", "outcome"); v != nil {
		return v
	}
	if v := checkString(fields, "notes", maxText); v != nil {
		return v
	}
	return checkTime(fields, "visited_at")
}

// The phone-call task's keys (docs/API.md §6.3): contact data, its own fields, the rest custom.
var (
	callNames   = []string{"first_name", "last_name", "name_prefix"}
	callStrings = []string{"campaign_id", "caller_id", "status", "outcome"}
	callTimes   = []string{"scheduled_at", "called_at"}
	callKnown   = map[string]bool{"phone_number": true, "email": true, "first_name": true, "last_name": true,
		"name_prefix": true, "notes": true, "campaign_id": true, "caller_id": true, "status": true, "outcome": true,
		"scheduled_at": true, "called_at": true}
)

// parsePhoneCall reads a phone-call task (docs/API.md §6.3): phone_number required in E.164,
// names and email optional contact data, the task's own fields, the rest custom. It has no
// idempotency key. The first failing field is the one violation.
func parsePhoneCall(body map[string]any, now time.Time, country string) (Draft, []tenants.Violation) {
	d := Draft{Kind: tenants.KindPhoneCallTask, CreatedAt: now, Fields: map[string]any{}, Payload: map[string]any{}, Country: country}
	if v := readCallContact(body, &d.Contact, country); v != nil {
		return d, []tenants.Violation{*v}
	}
	if v := checkCallFields(body); v != nil {
		return d, []tenants.Violation{*v}
	}
	for k, v := range body {
		switch {
		case !callKnown[k]:
			d.Payload[k] = v
		case k != "phone_number" && k != "email" && !isCallName(k) && v != nil:
			d.Fields[k] = v
		}
	}
	if tooManyIdentifiers(&d) {
		return d, []tenants.Violation{tooMany}
	}
	return d, nil
}

// readCallContact reads the phone number, e-mail and names of a phone-call task.
func readCallContact(body map[string]any, c *tenants.Contact, country string) *tenants.Violation {
	raw, present := body["phone_number"]
	if !present || raw == nil || raw == "" {
		return &tenants.Violation{Field: "phone_number", Code: "phone_number_missing", Message: "phone_number is required."}
	}
	s, _ := raw.(string)
	phone, ok := contact.NormalisePhone(s, country)
	if !ok {
		return &tenants.Violation{Field: "phone_number", Code: "phone_number_invalid", Message: "phone_number must be a phone number in international form, such as +49 151 12345678 (or, where the tenant sets a default country, a national number of it)."}
	}
	c.PhoneNumber = &phone
	if v, present := body["email"]; present && v != nil && v != "" {
		s, _ := v.(string)
		if _, ok := contact.NormaliseEmail(s); !ok {
			return &tenants.Violation{Field: "email", Code: "email_invalid", Message: "email is not a valid e-mail address."}
		}
		c.Email = &s
	}
	for i, dst := range []**string{&c.FirstName, &c.LastName, &c.NamePrefix} {
		if v := checkString(body, callNames[i], maxField); v != nil {
			return v
		}
		if s, _ := body[callNames[i]].(string); s != "" {
			*dst = &s
		}
	}
	return nil
}

// checkCallFields checks a phone-call task's own fields.
func checkCallFields(body map[string]any) *tenants.Violation {
	if v := checkStrings(body, callStrings...); v != nil {
		return v
	}
	if v := checkString(body, "notes", maxText); v != nil {
		return v
	}
	for _, k := range callTimes {
		if v := checkTime(body, k); v != nil {
			return v
		}
	}
	return nil
}

func isCallName(k string) bool { return k == "first_name" || k == "last_name" || k == "name_prefix" }
