package intake

import (
	"fmt"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/tenants/consent"
)

// MaxIdentifiers bounds the e-mail addresses and phone numbers one record may carry (its own
// and those in custom fields, docs/API.md §3.6): each is a match key to write and to remove, so
// the work one request causes stays small whatever it sends.
const MaxIdentifiers = 32

// tooMany refuses a record over MaxIdentifiers; it names the whole record, no one field.
var tooMany = tenants.Violation{Code: consent.CodeTooManyIdentifiers,
	Message: fmt.Sprintf("A record may carry at most %d e-mail addresses and phone numbers.", MaxIdentifiers)}

// TooMany returns the violation of a record whose identifiers (own and mentioned, as
// anonymise.Identifiers finds them) are more than MaxIdentifiers, nil otherwise.
func TooMany(ids anonymise.IDs) *tenants.Violation {
	if ids.Count() > MaxIdentifiers {
		v := tooMany
		return &v
	}
	return nil
}

// tooManyIdentifiers finds the draft's identifiers, keeps them in d.IDs (storing the draft
// hashes them without reading every phone number again) and reports whether they are too many.
func tooManyIdentifiers(d *Draft) bool {
	ids := anonymise.IdentifiersOfValidated(tenants.Record{Contact: d.Contact, Payload: d.Payload, Fields: d.Fields}, d.Country)
	d.IDs = &ids
	return TooMany(ids) != nil
}
