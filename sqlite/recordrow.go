package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// recordBody is the part of a record kept as JSON: what no query filters on.
type recordBody struct {
	Contact      tenants.Contact  `json:"contact"`
	Address      tenants.Address  `json:"address"`
	Consents     tenants.Consents `json:"consents"`
	Payload      map[string]any   `json:"payload,omitempty"`
	Fields       map[string]any   `json:"fields,omitempty"`
	MatchKeys    []string         `json:"matchKeys,omitempty"`
	AnonymisedAt *time.Time       `json:"anonymisedAt,omitempty"`
}

// recordCols are the columns every record read selects, in scanRecord's order.
const recordCols = `rid, tenant_id, kind, public_id, form_id, created_at, body`

// recordRow is a record with its row id.
type recordRow struct {
	rid int64
	rec tenants.Record
}

func scanRecord(row scanner) (recordRow, error) {
	var out recordRow
	var created int64
	var body string
	r := &out.rec
	if err := row.Scan(&out.rid, &r.TenantID, &r.Kind, &r.PublicID, &r.FormID, &created, &body); err != nil {
		return out, err
	}
	r.ID = tenants.RecordID(r.TenantID, r.Kind, r.PublicID)
	r.CreatedAt = fromMS(created)
	var b recordBody
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		// One record no reader can decode (a body nested deeper than the decoder allows, from
		// before intake bounded nesting) must not stop every read, erasure, export and job
		// that meets it: it is read without its custom fields, logged by row id and counted.
		if b, err = decodeLenient(body); err != nil {
			return out, fmt.Errorf("decode record %d: %w", out.rid, err)
		}
		slog.Warn("record body undecodable; read without its custom fields", "rid", out.rid)
		if o := undecodable.Load(); o != nil {
			(*o).Count(tenants.EventUndecodableRecord, 1)
		}
	}
	r.Contact, r.Address, r.Consents, r.Payload, r.Fields, r.MatchKeys, r.AnonymisedAt =
		b.Contact, b.Address, b.Consents, b.Payload, b.Fields, b.MatchKeys, b.AnonymisedAt
	return out, nil
}

// derived are the columns computed from a record's consents and body, written on every
// insert and rewrite.
type derived struct {
	body                         string
	ppStatus, geStatus, gpStatus string
	ppDeadline, geDeadline       sql.NullInt64
	gpDeadline, nextDeadline     sql.NullInt64
	anonymisedAt                 sql.NullInt64
	lapsedAt                     sql.NullInt64
}

func derive(r tenants.Record) (derived, error) {
	b, err := json.Marshal(recordBody{Contact: r.Contact, Address: r.Address, Consents: r.Consents, Payload: r.Payload,
		Fields: r.Fields, MatchKeys: r.MatchKeys, AnonymisedAt: r.AnonymisedAt})
	if err != nil {
		// The message may quote a value: say only what failed.
		return derived{}, fmt.Errorf("encode record: %T", err)
	}
	d := deriveColumns(r)
	d.body = string(b)
	return d, nil
}

// deriveColumns is derive without the body.
func deriveColumns(r tenants.Record) derived {
	c := r.Consents
	return derived{
		ppStatus: string(c.PrimaryPurpose.Status), ppDeadline: msPtr(deadlineColumn(c.PrimaryPurpose)),
		geStatus: string(c.GeneralContactEmail.Status), geDeadline: msPtr(deadlineColumn(c.GeneralContactEmail)),
		gpStatus: string(c.GeneralContactPhone.Status), gpDeadline: msPtr(deadlineColumn(c.GeneralContactPhone)),
		nextDeadline: msPtr(c.NextDeadline()), anonymisedAt: msPtr(r.AnonymisedAt), lapsedAt: msPtr(c.LapsedAt(r.CreatedAt))}
}

// columns are d's columns a rewrite may change, with their names, in a fixed order.
func (d derived) columns() [10]namedValue {
	return [10]namedValue{{"pp_status", d.ppStatus}, {"pp_deadline", d.ppDeadline}, {"ge_status", d.geStatus},
		{"ge_deadline", d.geDeadline}, {"gp_status", d.gpStatus}, {"gp_deadline", d.gpDeadline},
		{"next_deadline", d.nextDeadline}, {"anonymised_at", d.anonymisedAt}, {"lapsed_at", d.lapsedAt}, {"body", d.body}}
}

type namedValue struct {
	name  string
	value any
}

// deadlineColumn is what a consent's deadline column holds: its deadline, or for a pending
// consent the end of its confirmation period (its deadline matters only once granted, and is
// in the body), so that the covering index tells pending from lapsed.
func deadlineColumn(c tenants.Consent) *time.Time {
	if c.Status == tenants.StatusPending {
		return c.ConfirmBy
	}
	return c.Deadline
}

// statusColumns are the status and deadline columns of each consent.
var statusColumns = map[tenants.ConsentName][2]string{
	tenants.ConsentPrimaryPurpose:      {"pp_status", "pp_deadline"},
	tenants.ConsentGeneralContactEmail: {"ge_status", "ge_deadline"},
	tenants.ConsentGeneralContactPhone: {"gp_status", "gp_deadline"},
}

// statusIs is the SQL condition "this consent reads status at :now", deadlines applied as
// Consent.StatusAt applies them; the caller binds now (Unix ms) to the named parameter now.
func statusIs(consent tenants.ConsentName, status tenants.ConsentStatus) (string, bool) {
	cols, ok := statusColumns[consent]
	if !ok {
		return "", false
	}
	st, dl := cols[0], cols[1]
	switch status {
	case tenants.StatusGranted:
		return fmt.Sprintf("(%s = 'granted' AND (%s IS NULL OR %s > :now))", st, dl, dl), true
	case tenants.StatusExpired:
		return fmt.Sprintf("(%s = 'expired' OR (%s = 'granted' AND %s <= :now))", st, st, dl), true
	case tenants.StatusRevoked:
		return fmt.Sprintf("(%s = 'revoked')", st), true
	case tenants.StatusNotGranted:
		return fmt.Sprintf("(%s NOT IN ('granted', 'expired', 'revoked'))", st), true
	case tenants.StatusPending:
		return fmt.Sprintf("(%s = 'pending' AND %s > :now)", st, dl), true
	case tenants.StatusLapsed:
		return fmt.Sprintf("(%s = 'pending' AND (%s IS NULL OR %s <= :now))", st, dl, dl), true
	}
	return "", false
}

// undecodable hears of records read by decodeLenient: the observer of the store opened last
// with one (a process runs one server).
var undecodable atomic.Pointer[tenants.Observer]

// decodeLenient decodes a record body member by member, skipping the custom fields (payload,
// fields) token by token, which no depth limit stops; the other members are ours and small.
func decodeLenient(body string) (recordBody, error) {
	var b recordBody
	dec := json.NewDecoder(strings.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return b, fmt.Errorf("record body is not an object: %v", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return b, err
		}
		var dst any
		switch t {
		case "contact":
			dst = &b.Contact
		case "address":
			dst = &b.Address
		case "consents":
			dst = &b.Consents
		case "matchKeys":
			dst = &b.MatchKeys
		case "anonymisedAt":
			dst = &b.AnonymisedAt
		default:
			if err := skipValue(dec); err != nil {
				return b, err
			}
			continue
		}
		if err := dec.Decode(dst); err != nil {
			return b, err
		}
	}
	return b, nil
}

// skipValue reads past one JSON value, however deeply nested.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
