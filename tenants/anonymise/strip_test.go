package anonymise

import (
	"reflect"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

func TestStripFields(t *testing.T) {
	cases := []struct {
		name     string
		in       map[string]any
		declared map[string]bool
		want     map[string]any
	}{
		{name: "nil stays nil"},
		{name: "empty stays empty", in: map[string]any{}, want: map[string]any{}},
		{
			name: "personal key removes whatever it holds",
			in: map[string]any{
				"address": map[string]any{"country": "DE", "line1": "Am Markt 1"},
				"phones":  []any{"030 1234567"},
				"topic":   "parks",
			},
			want: map[string]any{"topic": "parks"},
		},
		{
			name: "array keeps its length, emptied map stays",
			in: map[string]any{
				"list":  []any{"a@example.org", 1.0, true, nil, "ok", []any{"+4915112345678"}},
				"inner": map[string]any{"x": "a@example.org"},
			},
			want: map[string]any{
				"list":  []any{nil, 1.0, true, nil, "ok", []any{nil}},
				"inner": map[string]any{},
			},
		},
		{
			name: "non-strings stay unless the key is personal",
			in: map[string]any{
				"ref": 4915112345678.0, "count": int32(3), "big": int64(7), "flag": false,
				"phone": 4915112345678.0, "zip": int32(10115),
				"Jane@Example.org": true, "+49 151 12345678": 1.0,
			},
			want: map[string]any{"ref": 4915112345678.0, "count": int32(3), "big": int64(7), "flag": false},
		},
		{
			name:     "declared keys: top level only, any case, true only",
			in:       map[string]any{"Member_No": "M-1", "club": "chess", "nested": map[string]any{"member_no": "M-2"}},
			declared: map[string]bool{"member_no": true, "club": false},
			want:     map[string]any{"club": "chess", "nested": map[string]any{"member_no": "M-2"}},
		},
		{
			name: "store document types are converted and cleaned",
			in: map[string]any{
				"doc":     testDoc{"email": "a@example.org", "size": "L"},
				"ordered": []testElem{{Key: "city", Value: "Berlin"}, {Key: "level", Value: testArr{"gold", "b@example.org"}}},
				"when":    time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
			},
			want: map[string]any{
				"doc":     map[string]any{"size": "L"},
				"ordered": map[string]any{"level": []any{"gold", nil}},
				"when":    time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
			},
		},
		{
			name: "values that cannot be inspected are dropped",
			in: map[string]any{
				"raw":    []byte("a@example.org"),
				"struct": struct{ Mail string }{"a@example.org"},
				"list":   []any{[]byte("x"), "ok"},
				"nilptr": (*string)(nil),
				"ptr":    ptr("a@example.org"),
			},
			want: map[string]any{"list": []any{nil, "ok"}, "nilptr": nil},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := stripFields(c.in, lowerSet(c.declared), "")
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("stripFields = %#v\nwant %#v", got, c.want)
			}
		})
	}
}

func TestStripRecord(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	granted := now.Add(-time.Hour)
	in := tenants.Record{
		ID: "t:formSubmission:s", TenantID: "t", Kind: tenants.KindFormSubmission, PublicID: "s",
		FormID: "f", CreatedAt: granted,
		Contact:   tenants.Contact{Email: ptr("a@example.org"), FirstName: ptr("Ann")},
		Address:   tenants.Address{Street: ptr("Main St"), Postcode: ptr("12345")},
		MatchKeys: []string{"e:1"},
		Consents: tenants.Consents{PrimaryPurpose: tenants.Consent{
			Status: tenants.StatusRevoked, GrantedAt: &granted, RevokedAt: &now,
			RevokedBy: "ops@example.org", Source: ptr("web"), IPAddress: ptr("192.0.2.1"),
			Timestamp: ptr("+49 151 12345678"),
		}},
	}
	got := Strip(in, nil, now)
	want := tenants.Record{
		ID: in.ID, TenantID: "t", Kind: tenants.KindFormSubmission, PublicID: "s", FormID: "f",
		CreatedAt: granted, AnonymisedAt: &now,
		Consents: tenants.Consents{PrimaryPurpose: tenants.Consent{
			Status: tenants.StatusRevoked, GrantedAt: &granted, RevokedAt: &now, Source: ptr("web"),
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Strip = %+v\nwant %+v", got, want)
	}
	if got.Consents.PrimaryPurpose.GrantedAt == in.Consents.PrimaryPurpose.GrantedAt {
		t.Error("Strip shares a time pointer with its input")
	}
}
