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

// TestOpenAPILintRules: the rules of the document's linter (make lint-openapi) that a test
// can check without it: every tag has a description, every operation a 4XX response.
func TestOpenAPILintRules(t *testing.T) {
	doc := openAPIDoc(t)
	tags, _ := doc["tags"].([]any)
	for _, raw := range tags {
		tag := raw.(map[string]any)
		if d, _ := tag["description"].(string); d == "" {
			t.Errorf("tag %v has no description", tag["name"])
		}
	}
	for path, item := range openAPIDig(doc, "paths") {
		for method, raw := range item.(map[string]any) {
			if !openAPIIsMethod(strings.ToUpper(method)) {
				continue
			}
			has4xx := false
			for code := range raw.(map[string]any)["responses"].(map[string]any) {
				has4xx = has4xx || strings.HasPrefix(code, "4")
			}
			if !has4xx {
				t.Errorf("%s %s documents no 4XX response", strings.ToUpper(method), path)
			}
		}
	}
}
