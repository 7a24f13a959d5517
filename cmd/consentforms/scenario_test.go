package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Helpers shared by the API scenario tests (submission, records, gdpr, unsubscribe).

// apiCase is one row of a table-driven API scenario: a request and what must come back.
type apiCase struct {
	name    string
	method  string // POST when empty
	path    string
	key     string
	body    any
	headers []string
	status  int
	// errs, when set, is the exact list of codes of a {"errors":[...]} body (any order, each once).
	errs []string
	// kind, when set, is the "error" of a single-error body, which must also carry a message.
	kind string
	// code and field, when set, are the single-error body's "code" and "details.field".
	code, field string
	// empty requires an empty body.
	empty bool
	// contains are substrings the body must hold.
	contains []string
	// check runs further assertions.
	check func(t *testing.T, r response)
}

// runCases runs each case as a subtest against s.
func runCases(t *testing.T, s *testServer, cases []apiCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := c.method
			if method == "" {
				method = "POST"
			}
			r := call(t, s, method, c.path, c.key, c.body, c.headers...)
			c.verify(t, r)
		})
	}
}

func (c apiCase) verify(t *testing.T, r response) {
	t.Helper()
	if r.Status != c.status {
		t.Fatalf("status %d, want %d; body %s", r.Status, c.status, r.Body)
	}
	if c.errs != nil {
		assertCodes(t, r, c.errs...)
	}
	if c.kind != "" {
		m := r.JSON(t)
		if m["error"] != c.kind {
			t.Errorf("error %v, want %q; body %s", m["error"], c.kind, r.Body)
		}
		if msg, _ := m["message"].(string); msg == "" {
			t.Errorf("no message in %s", r.Body)
		}
		if c.code != "" && m["code"] != c.code {
			t.Errorf("code %v, want %q; body %s", m["code"], c.code, r.Body)
		}
		if c.field != "" {
			d, _ := m["details"].(map[string]any)
			if d["field"] != c.field {
				t.Errorf("details.field %v, want %q; body %s", d["field"], c.field, r.Body)
			}
		}
	}
	if c.empty && len(r.Body) != 0 {
		t.Errorf("body %q, want empty", r.Body)
	}
	for _, want := range c.contains {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("body %s lacks %q", r.Body, want)
		}
	}
	if c.check != nil {
		c.check(t, r)
	}
}

// send is s.do without the harness's Fatal, safe from any goroutine.
func send(s *testServer, method, path, key string, body any, headers ...string) (response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return response{}, err
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		return response{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		if strings.TrimSpace(v) == "" {
			req.Header.Del(strings.TrimSpace(k))
			continue
		}
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b}, err
}

// call is send that fails t on a transport error.
func call(t *testing.T, s *testServer, method, path, key string, body any, headers ...string) response {
	t.Helper()
	r, err := send(s, method, path, key, body, headers...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// codesOf decodes a {"errors":[...]} body.
func codesOf(t *testing.T, r response) []string {
	t.Helper()
	var b struct {
		Errors []string `json:"errors"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil || b.Errors == nil {
		t.Fatalf("body %s is not {\"errors\":[...]}: %v", r.Body, err)
	}
	return b.Errors
}

// assertCodes requires a 400 list body holding exactly want, each once.
func assertCodes(t *testing.T, r response, want ...string) {
	t.Helper()
	if r.Status != 400 {
		t.Fatalf("status %d, want 400; body %s", r.Status, r.Body)
	}
	got := codesOf(t, r)
	sorted := slices.Sorted(slices.Values(got))
	if len(slices.Compact(slices.Clone(sorted))) != len(got) {
		t.Errorf("codes %v hold a duplicate", got)
	}
	w := slices.Sorted(slices.Values(want))
	if !slices.Equal(sorted, w) {
		t.Errorf("codes %v, want %v", got, want)
	}
}

// submit posts an accept-submission body and requires 200 with an empty body.
func submit(t *testing.T, s *testServer, key string, body map[string]any) {
	t.Helper()
	r := call(t, s, "POST", "/api/v1/forms/accept-submission", key, body)
	if r.Status != 200 || len(r.Body) != 0 {
		t.Fatalf("submit %v: %d %s", body, r.Status, r.Body)
	}
}

// postRecord posts a record to an ingestion path and returns its id (201 required).
func postRecord(t *testing.T, s *testServer, key, path string, body map[string]any) string {
	t.Helper()
	r := call(t, s, "POST", path, key, body)
	if r.Status != 201 {
		t.Fatalf("POST %s %v: %d %s", path, body, r.Status, r.Body)
	}
	m := r.JSON(t)
	id, _ := m["id"].(string)
	if id == "" || len(m) != 1 {
		t.Fatalf("POST %s: body %s, want {\"id\":...}", path, r.Body)
	}
	return id
}

// getSubmission reads a submission through the API (200 required).
func getSubmission(t *testing.T, s *testServer, key, id string) map[string]any {
	t.Helper()
	r := call(t, s, "GET", "/api/v1/forms/submissions/"+url.PathEscape(id), key, nil)
	if r.Status != 200 {
		t.Fatalf("GET submission %s: %d %s", id, r.Status, r.Body)
	}
	return r.JSON(t)
}

// consentsOf reads GET /api/v1/consents with one query parameter (200 required).
func consentsOf(t *testing.T, s *testServer, key, param, value string) map[string]any {
	t.Helper()
	r := call(t, s, "GET", "/api/v1/consents?"+param+"="+url.QueryEscape(value), key, nil)
	if r.Status != 200 {
		t.Fatalf("GET consents %s=%s: %d %s", param, value, r.Status, r.Body)
	}
	return r.JSON(t)
}

// at walks a decoded JSON value along a dotted path ("consents.primaryPurpose.status").
func at(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// str is at as a string ("" when absent or not a string).
func str(v any, path string) string {
	s, _ := at(v, path).(string)
	return s
}

// status is the status of one consent of a submission view.
func status(sub map[string]any, consent string) string {
	return str(sub, "consents."+consent+".status")
}

// timeAt parses an RFC 3339 UTC time at path, failing when it is absent or not UTC.
func timeAt(t *testing.T, v any, path string) time.Time {
	t.Helper()
	s := str(v, path)
	if !strings.HasSuffix(s, "Z") {
		t.Fatalf("%s = %v, want an RFC 3339 UTC time", path, at(v, path))
	}
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("%s = %q: %v", path, s, err)
	}
	return tm
}

// keysOf returns the sorted keys of the object at path.
func keysOf(v any, path string) []string {
	m, _ := at(v, path).(map[string]any)
	if path == "" {
		m, _ = v.(map[string]any)
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// with returns a copy of base with the overrides applied; an override of absent deletes the key.
func with(base map[string]any, overrides ...any) map[string]any {
	out := make(map[string]any, len(base)+len(overrides)/2)
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(overrides); i += 2 {
		k := overrides[i].(string)
		if overrides[i+1] == absent {
			delete(out, k)
			continue
		}
		out[k] = overrides[i+1]
	}
	return out
}

type absentT struct{}

// absent, as an override value of with, removes the key.
var absent = absentT{}

// jsonEqual compares a decoded JSON value with want after a JSON round trip of want.
func jsonEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var w any
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s = %s, want %s", what, g, b)
	}
}

// phoneOf returns a distinct, valid E.164 number for a test person.
func phoneOf(n int) string { return fmt.Sprintf("+44207946%04d", n) }

// openTenant provisions a tenant (with the open form "petition") whose keys are not rate
// limited in practice, so that a table of rows can run back to back.
func openTenant(s *testServer) string { return s.tenant("--rate-limit", "1000000") }
