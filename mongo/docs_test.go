package mongo

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite testdata/docs from the current documents")

// filled returns a T with every field set to a value of its own (strings carry their field's
// name), so that a document shows every field it stores.
func filled[T any]() T {
	var v T
	fill(reflect.ValueOf(&v).Elem(), "")
	return v
}

func fill(v reflect.Value, name string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.ToLower(name))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), name)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), name)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		if e.Kind() == reflect.Interface {
			e.Set(reflect.ValueOf("v"))
		} else {
			fill(e, name)
		}
		m.SetMapIndex(reflect.ValueOf("k"), e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(t0))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), v.Type().Field(i).Name)
			}
		}
	}
}

// storedCase is one domain value as its document stores it.
type storedCase struct {
	name string
	doc  any
}

func storedCases(t *testing.T) []storedCase {
	rec := filled[tenants.Record]()
	rec.Kind = tenants.KindFormSubmission
	recDoc, err := toDoc(rec)
	if err != nil {
		t.Fatal(err)
	}
	zeroRec, err := toDoc(tenants.Record{Kind: tenants.KindFormSubmission})
	if err != nil {
		t.Fatal(err)
	}
	return []storedCase{
		{"tenant", filled[tenants.Tenant]()}, {"tenant-zero", tenants.Tenant{}},
		{"staff", filled[tenants.Staff]()}, {"staff-zero", tenants.Staff{}},
		{"apikey", filled[tenants.APIKey]()}, {"apikey-zero", tenants.APIKey{}},
		{"form", filled[tenants.Form]()}, {"form-zero", tenants.Form{}},
		{"webhooktoken", filled[tenants.WebhookToken]()}, {"webhooktoken-zero", tenants.WebhookToken{}},
		{"bulk", filled[tenants.BulkErasure]()}, {"bulk-zero", tenants.BulkErasure{}},
		{"audit", auditDoc{AuditEntry: filled[tenants.AuditEntry](), Seq: 7}}, {"audit-zero", auditDoc{}},
		{"event", filled[tenants.OutboxEvent]()}, {"event-zero", tenants.OutboxEvent{}},
		{"endpoint", filled[tenants.Endpoint]()}, {"endpoint-zero", tenants.Endpoint{}},
		{"delivery", deliveryDoc{ID: "id", Delivery: filled[tenants.Delivery]()}}, {"delivery-zero", deliveryDoc{}},
		{"record", recDoc}, {"record-zero", zeroRec},
	}
}

// TestStoredFieldNames: every document keeps the field names, types and omissions it was
// stored with (testdata/docs), so that the data of earlier versions reads back unchanged.
func TestStoredFieldNames(t *testing.T) {
	for _, c := range storedCases(t) {
		got, err := bson.MarshalExtJSONIndent(c.doc, true, false, "", "  ")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		path := filepath.Join("testdata", "docs", c.name+".json")
		if *updateDocs {
			if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimSpace(want), got) {
			t.Errorf("%s is stored as\n%s\nwant\n%s", c.name, got, want)
		}
	}
}
