package ops

import (
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
)

// NewIdentity normalises the e-mail address and phone number a person is named by: at least
// one of them, each well formed (docs/API.md §3.4), the phone number in international form or,
// when the tenant has a default country, in its national form. Violations name the inputs
// "email" and "phone", with the codes "required" (neither given) and "invalid".
func NewIdentity(email, phone, country string) (Identity, tenants.Violations) {
	var id Identity
	if email == "" && phone == "" {
		return id, tenants.Violations{{Field: "email", Code: "required", Message: "Give an e-mail address, a phone number, or both."}}
	}
	var vs tenants.Violations
	if email != "" {
		n, ok := contact.NormaliseEmail(email)
		if !ok {
			vs = append(vs, tenants.Violation{Field: "email", Code: "invalid", Message: "This is not an e-mail address."})
		}
		id.Email = n
	}
	if phone != "" {
		n, ok := contact.NormalisePhone(phone, country)
		if !ok {
			vs = append(vs, tenants.Violation{Field: "phone", Code: "invalid",
				Message: "Give the number in international format, e.g. +49 151 12345678."})
		}
		id.Phone = n
	}
	return id, vs
}
