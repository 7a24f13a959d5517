package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consentforms/consentforms/sqlite"
)

// nested is a JSON value nested depth levels deep.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// TestBodyShapeLimits: a body nested deeper than 32 levels, or with more than 1000 keys and
// array elements, is refused 400 with its own code and stores nothing; one at the limits is
// accepted.
func TestBodyShapeLimits(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	sub := func(extra string) response {
		return s.do("POST", acceptPath, k, `{"form_id":"petition","consent_to_general_contact_email":true,"email":"deep@example.org",`+
			`"consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"30d"`+extra+`}`)
	}
	for _, c := range []struct {
		name, extra, code string
	}{
		{"9999 levels deep", `,"x":` + nested(9999), "payload_too_deep"},
		{"33 levels deep", `,"x":` + nested(32), "payload_too_deep"},
		{"deep arrays", `,"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40), "payload_too_deep"},
		{"many keys", `,"x":{` + manyKeys(1200) + `}`, "payload_too_many_keys"},
		{"many array elements", `,"x":[` + strings.Repeat("0,", 5000) + `0]`, "payload_too_many_keys"},
	} {
		r := sub(c.extra)
		if m := r.JSON(t); r.Status != 400 || m["code"] != c.code || m["error"] != "ValidationError" {
			t.Errorf("%s: %d %s, want 400 %s", c.name, r.Status, r.Body, c.code)
		}
	}
	// Braces inside strings are text, not nesting.
	if r := sub(`,"x":"` + strings.Repeat("{[", 100) + `","y":` + nested(30)); r.Status != 200 {
		t.Errorf("at the limits: %d %s", r.Status, r.Body)
	}
	if r := sub(`,"x":{` + manyKeys(900) + `}`); r.Status != 200 {
		t.Errorf("900 keys: %d %s", r.Status, r.Body)
	}
	erased := erase(t, s, k, map[string]any{"email": "deep@example.org"})
	if erased.FormSubmissions != 2 {
		t.Errorf("erased %+v, want the 2 accepted submissions only", erased)
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	return b.String()
}

// TestUndecodableRecordHarmsNoOne: a stored record whose body no reader can decode (as one
// nested 9,999 levels deep, accepted by earlier versions) does not stop reads, erasure, export
// or the expiry job: it is read without its custom fields, logged by row id and counted.
func TestUndecodableRecordHarmsNoOne(t *testing.T) {
	t.Parallel()
	if mongoURI != "" {
		t.Skip("writes a bad body into the embedded store's file")
	}
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	for i, id := range []string{"bad", "good"} {
		body := fmt.Sprintf(`{"form_id":"petition","submission_id":%q,"consent_to_general_contact_email":true,"email":"p%d@example.org","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"1d","note":1}`, id, i)
		if r := s.do("POST", acceptPath, k, body); r.Status != 200 {
			t.Fatalf("%s: %d %s", id, r.Status, r.Body)
		}
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.Dir, sqlite.FileName)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE records SET body = replace(body, '"note":1', '"note":'||?) WHERE public_id = 'bad'`, nested(10001))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"bad", "good"} {
		if r := s.do("GET", "/api/v1/forms/submissions/"+id, k, nil); r.Status != 200 {
			t.Errorf("GET %s: %d %s", id, r.Status, r.Body)
		}
	}
	if r := s.do("GET", "/api/v1/consents?email=p1@example.org", k, nil); r.Status != 200 {
		t.Errorf("consents: %d %s", r.Status, r.Body)
	}
	if r := s.do("POST", exportPath, k, map[string]any{"email": "p0@example.org"}); r.Status != 200 {
		t.Errorf("export of the person with the bad record: %d %s", r.Status, r.Body)
	}
	var buf bytes.Buffer
	if err := run(context.Background(), []string{"export"}, s.getenv, &buf, io.Discard); err != nil {
		t.Errorf("consentforms export: %v", err)
	}
	if got := erase(t, s, k, map[string]any{"email": "p0@example.org"}); got.FormSubmissions != 1 {
		t.Errorf("erasing the person with the bad record: %+v", got)
	}
}
