package mongo

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// recordDoc is a record as stored. Payload and Fields are free-form JSON from clients, kept
// as JSON text: document stores restrict field names ('.' and '$' are refused by some), and
// text keeps whatever JSON a client sends exactly, without ever failing a write.
type recordDoc struct {
	ID           string       `bson:"_id"`
	TenantID     string       `bson:"tenantId"`
	Kind         tenants.Kind `bson:"kind"`
	PublicID     string       `bson:"publicId"`
	FormID       string       `bson:"formId"`
	CreatedAt    time.Time    `bson:"createdAt"`
	Contact      contactDoc   `bson:"contact"`
	Address      addressDoc   `bson:"address"`
	Consents     consentsDoc  `bson:"consents"`
	Payload      string       `bson:"payload"`
	Fields       string       `bson:"fields"`
	MatchKeys    []string     `bson:"matchKeys"`
	AnonymisedAt *time.Time   `bson:"anonymisedAt"`
	// NextDeadline is the earliest deadline of a consent stored as granted (null: none), what
	// the expiry job looks for.
	NextDeadline *time.Time `bson:"nextDeadline"`
	// LapsedAt is when the record's last consent stopped being granted (tenants.Consents.LapsedAt;
	// null: never by itself), what retention counted from consents-lapsed looks for.
	LapsedAt *time.Time `bson:"lapsedAt"`
	// Rev counts the rewrites of the record: every change is conditional on the revision it
	// read, so that one writer's change is never lost under another's.
	Rev int64 `bson:"rev"`
	// Ingest is the token of the ingestion that inserted the record (a random id per call):
	// the writer tells its own insert, repeated after a lost answer, from another call's, and
	// removes only its own when it cannot complete the ingestion.
	Ingest string `bson:"ingest,omitempty"`
	// AuditPending is the id of the audit entry the record's latest revocation awaits, written
	// with the revocation itself: a revocation whose entry could not be appended before its
	// caller was answered an error leaves it, and the caller's repeat (or any later revocation
	// reaching the record) appends the entry then — a revocation is never left without one.
	AuditPending string `bson:"auditPending,omitempty"`
}

func toDoc(r tenants.Record) (recordDoc, error) {
	payload, err := jsonText(r.Payload)
	if err != nil {
		return recordDoc{}, err
	}
	fields, err := jsonText(r.Fields)
	if err != nil {
		return recordDoc{}, err
	}
	keys := r.MatchKeys
	if keys == nil {
		keys = []string{} // always an array, as the multikey index expects
	}
	return recordDoc{ID: tenants.RecordID(r.TenantID, r.Kind, r.PublicID), TenantID: r.TenantID, Kind: r.Kind, PublicID: r.PublicID, FormID: r.FormID,
		CreatedAt: r.CreatedAt, Contact: contactDoc(r.Contact), Address: addressDoc(r.Address), Consents: toConsentsDoc(r.Consents), Payload: payload,
		Fields: fields, MatchKeys: keys, AnonymisedAt: r.AnonymisedAt, NextDeadline: r.Consents.NextDeadline(),
		LapsedAt: r.Consents.LapsedAt(r.CreatedAt)}, nil
}

// record is the stored record as the domain's.
func (d recordDoc) record() (tenants.Record, error) {
	r := tenants.Record{ID: d.ID, TenantID: d.TenantID, Kind: d.Kind, PublicID: d.PublicID, FormID: d.FormID,
		CreatedAt: d.CreatedAt, Contact: tenants.Contact(d.Contact), Address: tenants.Address(d.Address), Consents: d.Consents.consents(),
		AnonymisedAt: d.AnonymisedAt}
	if len(d.MatchKeys) > 0 {
		r.MatchKeys = append([]string(nil), d.MatchKeys...)
	}
	if err := jsonMap(d.Payload, &r.Payload); err != nil {
		return r, fmt.Errorf("decode payload of record %s: %T", d.ID, err)
	}
	if err := jsonMap(d.Fields, &r.Fields); err != nil {
		return r, fmt.Errorf("decode fields of record %s: %T", d.ID, err)
	}
	return r, nil
}

// copied returns a deep copy of d, so that a change applied to a record of one leaves the
// other as read.
func (d recordDoc) copied() (recordDoc, error) {
	b, err := bson.Marshal(d)
	if err != nil {
		return recordDoc{}, fmt.Errorf("copy record %s: %w", d.ID, err)
	}
	var c recordDoc
	if err := bson.Unmarshal(b, &c); err != nil {
		return recordDoc{}, fmt.Errorf("copy record %s: %w", d.ID, err)
	}
	return c, nil
}

// carries reports whether the record still holds any of keys.
func (d recordDoc) carries(keys []string) bool {
	for _, k := range d.MatchKeys {
		for _, want := range keys {
			if k == want {
				return true
			}
		}
	}
	return false
}

// jsonText is m as JSON text, "" for a nil map.
func jsonText(m map[string]any) (string, error) {
	if m == nil {
		return "", nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		// The message may quote a value: say only what failed.
		return "", fmt.Errorf("encode record: %T", err)
	}
	return string(b), nil
}

// jsonMap decodes JSON text into m; "" leaves m nil (no map was stored).
func jsonMap(s string, m *map[string]any) error {
	if s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), m)
}
