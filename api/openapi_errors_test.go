package api

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestOpenAPIEveryRouteRefusesEncodedBodies: every operation of the document answers a
// compressed body with the 415 it documents, before reading it or asking for credentials,
// and documents the 413 of the body limit, which applies to every route.
func TestOpenAPIEveryRouteRefusesEncodedBodies(t *testing.T) {
	app := New(openAPITestDeps())
	doc := openAPIDoc(t)
	for path, item := range openAPIDig(doc, "paths") {
		for method, raw := range item.(map[string]any) {
			m := strings.ToUpper(method)
			if !openAPIIsMethod(m) {
				continue
			}
			responses, _ := raw.(map[string]any)["responses"].(map[string]any)
			for _, code := range []string{"413", "415"} {
				if responses[code] == nil {
					t.Errorf("%s %s: no %s response", m, path, code)
				}
			}
			concrete := openAPIPathParam.ReplaceAllString(path, "x")
			req := httptest.NewRequest(m, concrete, strings.NewReader("\x1f\x8b compressed"))
			req.Header.Set("Content-Encoding", "gzip")
			resp, err := app.Test(req)
			if err != nil {
				t.Fatalf("%s %s: %v", m, path, err)
			}
			if resp.StatusCode != 415 {
				t.Errorf("%s %s with Content-Encoding gzip: %d, want 415", m, path, resp.StatusCode)
			}
		}
	}
}
