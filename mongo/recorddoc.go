package mongo

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// recordDoc is a record as stored. Custom fields and the kind's own fields are free-form JSON
// from clients, and document stores restrict what they accept (the embedded store refuses keys
// with '.' or a leading '$' and arrays nested in arrays), so they are stored as JSON text:
// whatever JSON a client sends is kept exactly and never fails a write.
type recordDoc struct {
	ID           string           `bson:"_id"`
	TenantID     string           `bson:"tenantId"`
	Kind         tenants.Kind     `bson:"kind"`
	PublicID     string           `bson:"publicId"`
	FormID       string           `bson:"formId,omitempty"`
	CreatedAt    time.Time        `bson:"createdAt"`
	Contact      tenants.Contact  `bson:"contact"`
	Address      tenants.Address  `bson:"address"`
	Consents     tenants.Consents `bson:"consents"`
	Payload      string           `bson:"payload"`
	Fields       string           `bson:"fields"`
	MatchKeys    []string         `bson:"matchKeys"`
	AnonymisedAt *time.Time       `bson:"anonymisedAt"`
}

func toDoc(r tenants.Record) (recordDoc, error) {
	payload, err := jsonText(r.Payload)
	if err != nil {
		return recordDoc{}, fmt.Errorf("encode payload: %w", err)
	}
	fields, err := jsonText(r.Fields)
	if err != nil {
		return recordDoc{}, fmt.Errorf("encode fields: %w", err)
	}
	return recordDoc{ID: r.ID, TenantID: r.TenantID, Kind: r.Kind, PublicID: r.PublicID, FormID: r.FormID,
		CreatedAt: r.CreatedAt, Contact: r.Contact, Address: r.Address, Consents: r.Consents, Payload: payload,
		Fields: fields, MatchKeys: r.MatchKeys, AnonymisedAt: r.AnonymisedAt}, nil
}

func fromDoc(d recordDoc) (tenants.Record, error) {
	r := tenants.Record{ID: d.ID, TenantID: d.TenantID, Kind: d.Kind, PublicID: d.PublicID, FormID: d.FormID,
		CreatedAt: d.CreatedAt, Contact: d.Contact, Address: d.Address, Consents: d.Consents, MatchKeys: d.MatchKeys,
		AnonymisedAt: d.AnonymisedAt}
	var err error
	if r.Payload, err = jsonMap(d.Payload); err != nil {
		return r, fmt.Errorf("decode payload of %s: %w", d.ID, err)
	}
	if r.Fields, err = jsonMap(d.Fields); err != nil {
		return r, fmt.Errorf("decode fields of %s: %w", d.ID, err)
	}
	return r, nil
}

func jsonText(m map[string]any) (string, error) {
	if m == nil {
		return "", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

func jsonMap(s string) (map[string]any, error) {
	if s == "" {
		return nil, nil
	}
	var m map[string]any
	return m, json.Unmarshal([]byte(s), &m)
}
