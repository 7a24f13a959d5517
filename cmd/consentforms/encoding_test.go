package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"testing"
)

// TestCompressedBodiesRefused: a compressed body is answered 415 before anything reads it
// (the framework would inflate it without limit, and the size limit would count the
// compressed bytes), on the API and on the admin sign-in alike; nothing is stored.
// Content-Encoding identity is an uncompressed body.
func TestCompressedBodiesRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	k := s.key(tn, "all")
	body, _ := json.Marshal(map[string]any{"form_id": "petition", "submission_id": "zipped", "email": "zip@example.org",
		"consent_to_general_contact_email": true})
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(body)
	_ = zw.Close()
	// A small gzip body that would inflate to 4 MiB, over the 1 MiB limit.
	var bomb bytes.Buffer
	bw := gzip.NewWriter(&bomb)
	_, _ = bw.Write(append([]byte(`{"form_id":"petition","x":"`), bytes.Repeat([]byte("a"), 4<<20)...))
	_ = bw.Close()
	for _, c := range []struct {
		name, path, encoding string
		body                 []byte
	}{
		{"gzip submission", acceptPath, "gzip", zipped.Bytes()},
		{"gzip bomb", acceptPath, "gzip", bomb.Bytes()},
		{"br", acceptPath, "br", body},
		{"deflate, then identity", acceptPath, "deflate, identity", body},
		{"admin sign-in", "/admin/login", "gzip", zipped.Bytes()},
	} {
		r := s.do("POST", c.path, k, c.body, "Content-Encoding: "+c.encoding)
		if r.Status != 415 || r.JSON(t)["error"] != "UnsupportedMediaType" {
			t.Errorf("%s: %d %s, want 415 UnsupportedMediaType", c.name, r.Status, r.Body)
		}
	}
	if g := s.do("GET", "/api/v1/forms/submissions/zipped", k, nil); g.Status != 404 {
		t.Errorf("the refused submission was stored: %d", g.Status)
	}
	if r := s.do("POST", acceptPath, k, body, "Content-Encoding: identity"); r.Status != 200 {
		t.Errorf("identity: %d %s", r.Status, r.Body)
	}
}
