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
		{"tenant", toTenantDoc(filled[tenants.Tenant]())}, {"tenant-zero", tenantDoc{}},
		{"staff", staffDoc(filled[tenants.Staff]())}, {"staff-zero", staffDoc{}},
		{"apikey", apiKeyDoc(filled[tenants.APIKey]())}, {"apikey-zero", apiKeyDoc{}},
		{"form", withID(toFormDoc(filled[tenants.Form]()), "id")}, {"form-zero", withID(toFormDoc(tenants.Form{}), "")},
		{"webhooktoken", tokenDoc(filled[tenants.WebhookToken]())}, {"webhooktoken-zero", tokenDoc{}},
		{"bulk", bulkDoc(filled[tenants.BulkErasure]())}, {"bulk-zero", bulkDoc{}},
		{"audit", toAuditDoc(filled[tenants.AuditEntry](), 7)}, {"audit-zero", auditDoc{}},
		{"event", eventDoc(filled[tenants.OutboxEvent]())}, {"event-zero", eventDoc{}},
		{"endpoint", endpointDoc(filled[tenants.Endpoint]())}, {"endpoint-zero", endpointDoc{}},
		{"delivery", withDeliveryID(toDeliveryDoc(filled[tenants.Delivery]()), "id")}, {"delivery-zero", withDeliveryID(toDeliveryDoc(tenants.Delivery{}), "")},
		{"record", recDoc}, {"record-zero", zeroRec},
		{"subjectrequest", toSubjectRequestDoc(filled[tenants.SubjectRequest]())}, {"subjectrequest-zero", subjectRequestDoc{}},
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

// withID and withDeliveryID set the ids that the repositories derive (the golden files hold
// the ids the earlier documents were given as they were).
func withID(d formDoc, id string) formDoc { d.ID = id; return d }

func withDeliveryID(d deliveryDoc, id string) deliveryDoc { d.ID = id; return d }

// TestStoredDocumentsReadBack: the documents of testdata/docs read back as the domain values
// they were written from.
func TestStoredDocumentsReadBack(t *testing.T) {
	rec := filled[tenants.Record]()
	rec.Kind = tenants.KindFormSubmission
	rec.ID = tenants.RecordID(rec.TenantID, rec.Kind, rec.PublicID)
	check(t, "tenant", filled[tenants.Tenant](), func(d tenantDoc) (tenants.Tenant, error) { return d.tenant(), nil })
	check(t, "staff", filled[tenants.Staff](), func(d staffDoc) (tenants.Staff, error) { return tenants.Staff(d), nil })
	check(t, "apikey", filled[tenants.APIKey](), func(d apiKeyDoc) (tenants.APIKey, error) { return tenants.APIKey(d), nil })
	check(t, "form", filled[tenants.Form](), func(d formDoc) (tenants.Form, error) { return d.form(), nil })
	check(t, "webhooktoken", filled[tenants.WebhookToken](), func(d tokenDoc) (tenants.WebhookToken, error) { return tenants.WebhookToken(d), nil })
	check(t, "bulk", filled[tenants.BulkErasure](), func(d bulkDoc) (tenants.BulkErasure, error) { return tenants.BulkErasure(d), nil })
	check(t, "audit", filled[tenants.AuditEntry](), func(d auditDoc) (tenants.AuditEntry, error) { return d.entry(), nil })
	check(t, "event", filled[tenants.OutboxEvent](), func(d eventDoc) (tenants.OutboxEvent, error) { return tenants.OutboxEvent(d), nil })
	check(t, "endpoint", filled[tenants.Endpoint](), func(d endpointDoc) (tenants.Endpoint, error) { return tenants.Endpoint(d), nil })
	check(t, "delivery", filled[tenants.Delivery](), func(d deliveryDoc) (tenants.Delivery, error) { return d.delivery(), nil })
	check(t, "record", rec, recordDoc.record)
	check(t, "subjectrequest", filled[tenants.SubjectRequest](), func(d subjectRequestDoc) (tenants.SubjectRequest, error) { return d.request(), nil })
}

// check decodes the golden document name as D and compares what read makes of it with want.
func check[D, T any](t *testing.T, name string, want T, read func(D) (T, error)) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "docs", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var d D
	if err := bson.UnmarshalExtJSON(b, true, &d); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := read(d)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s reads back as\n%+v\nwant\n%+v", name, got, want)
	}
}
