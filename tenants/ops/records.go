package ops

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
)

// FieldError is a rejected field of a record body.
type FieldError struct {
	Field   string
	Code    string
	Message string
}

func (e *FieldError) Error() string { return e.Message }

// maxText bounds free-text fields (notes); other fields are bounded by maxField.
const (
	maxField = 1000
	maxText  = 10000
)

// CanvassingFields are the canvassing record's own known keys.
var CanvassingFields = []string{"canvasser_id", "visited_at", "outcome", "notes"}

// CheckStrings requires the named fields, when present, to be strings of at most maxField characters.
func CheckStrings(fields map[string]any, names ...string) error {
	for _, n := range names {
		if err := checkString(fields, n, maxField); err != nil {
			return err
		}
	}
	return nil
}

func checkString(fields map[string]any, name string, limit int) error {
	v, ok := fields[name]
	if !ok || v == nil {
		return nil
	}
	s, isString := v.(string)
	if !isString || utf8.RuneCountInString(s) > limit {
		return &FieldError{Field: name, Code: name + "_invalid", Message: fmt.Sprintf("%s must be a string of at most %d characters.", name, limit)}
	}
	return nil
}

func checkTime(fields map[string]any, name string) error {
	v, ok := fields[name]
	if !ok || v == nil {
		return nil
	}
	s, isString := v.(string)
	if isString {
		if _, err := time.Parse(time.RFC3339, s); err == nil {
			return nil
		}
	}
	return &FieldError{Field: name, Code: name + "_invalid", Message: name + " must be an RFC 3339 date-time."}
}

// CheckCanvassing validates a canvassing record's own fields.
func CheckCanvassing(fields map[string]any) error {
	if err := CheckStrings(fields, "canvasser_id", "outcome"); err != nil {
		return err
	}
	if err := checkString(fields, "notes", maxText); err != nil {
		return err
	}
	return checkTime(fields, "visited_at")
}

// PhoneCallTask is a parsed phone-call task body.
type PhoneCallTask struct {
	Contact tenants.Contact
	Fields  map[string]any
	Payload map[string]any
}

var callStrings = []string{"campaign_id", "caller_id", "status", "outcome"}
var callTimes = []string{"scheduled_at", "called_at"}

// ParsePhoneCallTask validates a phone-call task body (docs/API.md §6.3): phone_number required
// in E.164, names and email optional contact data, the task's own fields, the rest custom.
func ParsePhoneCallTask(body map[string]any) (PhoneCallTask, error) {
	t := PhoneCallTask{Fields: map[string]any{}, Payload: map[string]any{}}
	raw, present := body["phone_number"]
	if !present || raw == nil || raw == "" {
		return t, &FieldError{Field: "phone_number", Code: "phone_number_missing", Message: "phone_number is required."}
	}
	s, _ := raw.(string)
	phone, ok := contact.NormalisePhone(s)
	if !ok {
		return t, &FieldError{Field: "phone_number", Code: "phone_number_invalid", Message: "phone_number must be an E.164 number such as +4915112345678."}
	}
	t.Contact.PhoneNumber = &phone
	if v, present := body["email"]; present && v != nil && v != "" {
		s, _ := v.(string)
		if _, ok := contact.NormaliseEmail(s); !ok {
			return t, &FieldError{Field: "email", Code: "email_invalid", Message: "email is not a valid e-mail address."}
		}
		t.Contact.Email = &s
	}
	names := map[string]**string{"first_name": &t.Contact.FirstName, "last_name": &t.Contact.LastName, "name_prefix": &t.Contact.NamePrefix}
	for k, dst := range names {
		if err := checkString(body, k, maxField); err != nil {
			return t, err
		}
		if v, _ := body[k].(string); v != "" {
			*dst = &v
		}
	}
	for _, k := range callStrings {
		if err := checkString(body, k, maxField); err != nil {
			return t, err
		}
	}
	if err := checkString(body, "notes", maxText); err != nil {
		return t, err
	}
	for _, k := range callTimes {
		if err := checkTime(body, k); err != nil {
			return t, err
		}
	}
	own := append(append([]string{"notes"}, callStrings...), callTimes...)
	known := map[string]bool{"phone_number": true, "email": true, "first_name": true, "last_name": true, "name_prefix": true}
	for _, k := range own {
		known[k] = true
		if v, ok := body[k]; ok && v != nil {
			t.Fields[k] = v
		}
	}
	for k, v := range body {
		if !known[k] {
			t.Payload[k] = v
		}
	}
	return t, nil
}
