package api

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/consentforms/consentforms/tenants/consent"
)

// openAPIDoc parses the embedded document, failing the test on malformed JSON.
func openAPIDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.json is not valid JSON: %v", err)
	}
	return doc
}

// The file on disk is what is embedded (guards against a stale build cache or a wrong embed).
func TestOpenAPIEmbedded(t *testing.T) {
	disk, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(disk, openAPI) {
		t.Fatal("embedded openAPI differs from openapi.json")
	}
}

func TestOpenAPIVersionAndBasics(t *testing.T) {
	doc := openAPIDoc(t)
	v, _ := doc["openapi"].(string)
	if !strings.HasPrefix(v, "3.1") {
		t.Fatalf(`"openapi" = %q, want 3.1.x`, v)
	}
	info, _ := doc["info"].(map[string]any)
	if info["title"] == nil || info["version"] == nil {
		t.Errorf("info needs title and version: %v", info)
	}
	servers, _ := doc["servers"].([]any)
	if len(servers) == 0 || servers[0].(map[string]any)["url"] != "/" {
		t.Errorf(`servers must start with the relative "/": %v`, servers)
	}
	schemes := openAPIDig(doc, "components", "securitySchemes")
	for _, name := range []string{"bearerAuth", "basicAuth", "mailchimpToken", "sendgridSignature"} {
		if schemes[name] == nil {
			t.Errorf("components.securitySchemes.%s missing", name)
		}
	}
	if b, _ := schemes["bearerAuth"].(map[string]any); b["type"] != "http" || b["scheme"] != "bearer" {
		t.Errorf("bearerAuth must be http bearer: %v", b)
	}
	global, _ := doc["security"].([]any)
	if len(global) == 0 || global[0].(map[string]any)["bearerAuth"] == nil {
		t.Errorf("global security must require bearerAuth: %v", global)
	}
}

// openAPIRouteKey is one operation: METHOD and path with parameters reduced to {} so that Fiber's
// ":id" and OpenAPI's "{submission_id}" compare equal.
type openAPIRouteKey struct{ method, path string }

var (
	openAPIFiberParam = regexp.MustCompile(`:[A-Za-z0-9_]+\??|\*|\+`)
	openAPIPathParam  = regexp.MustCompile(`\{[^}]+\}`)
)

// openAPITestDeps are zero-value dependencies (New must not need them at construction) plus
// a discarding logger, which the request log needs when a request is served.
func openAPITestDeps() Deps {
	return Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestOpenAPICoversEveryRoute(t *testing.T) {
	app := New(openAPITestDeps())
	registered := map[openAPIRouteKey]string{}
	for _, r := range app.GetRoutes(true) {
		if r.Method == "HEAD" || r.Method == "USE" || r.Method == "CONNECT" || r.Method == "TRACE" {
			continue
		}
		if openAPIDeprecatedAliases[r.Method+" "+r.Path] {
			continue
		}
		registered[openAPIRouteKey{r.Method, openAPIFiberParam.ReplaceAllString(r.Path, "{}")}] = r.Method + " " + r.Path
	}
	if len(registered) == 0 {
		t.Fatal("New registered no routes")
	}

	doc := openAPIDoc(t)
	documented := map[openAPIRouteKey]string{}
	for path, item := range openAPIDig(doc, "paths") {
		for method := range item.(map[string]any) {
			m := strings.ToUpper(method)
			if !openAPIIsMethod(m) {
				continue
			}
			documented[openAPIRouteKey{m, openAPIPathParam.ReplaceAllString(path, "{}")}] = m + " " + path
		}
	}

	var missing, extra []string
	for k, v := range registered {
		if _, ok := documented[k]; !ok {
			missing = append(missing, v)
		}
	}
	for k, v := range documented {
		if _, ok := registered[k]; !ok {
			extra = append(extra, v)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("routes registered by New but missing from openapi.json:\n  %s", strings.Join(missing, "\n  "))
	}
	if len(extra) > 0 {
		t.Errorf("operations in openapi.json that New does not register:\n  %s", strings.Join(extra, "\n  "))
	}
}

// openAPIDeprecatedAliases are routes kept answering for a release under a path the document
// no longer lists (its template was ambiguous), each marked deprecated in its answers.
var openAPIDeprecatedAliases = map[string]bool{
	"GET /api/v1/forms/:form_id/challenge":     true,
	"OPTIONS /api/v1/forms/:form_id/challenge": true,
}

// TestOpenAPINoAmbiguousPaths: no two paths of the document could both match one request
// without one being the more specific in every segment (as /api/v1/forms/submissions/{id}
// and /api/v1/forms/{form_id}/challenge did for /api/v1/forms/submissions/challenge).
func TestOpenAPINoAmbiguousPaths(t *testing.T) {
	var paths []string
	for p := range openAPIDig(openAPIDoc(t), "paths") {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	param := func(s string) bool { return strings.HasPrefix(s, "{") }
	for i, a := range paths {
		for _, b := range paths[i+1:] {
			as, bs := strings.Split(a, "/"), strings.Split(b, "/")
			if len(as) != len(bs) {
				continue
			}
			match, aMore, bMore := true, false, false
			for k := range as {
				switch x, y := as[k], bs[k]; {
				case x == y, param(x) && param(y):
				case param(x):
					bMore = true
				case param(y):
					aMore = true
				default:
					match = false
				}
			}
			if match && (aMore && bMore || !aMore && !bMore) {
				t.Errorf("ambiguous paths: %s and %s", a, b)
			}
		}
	}
}

func openAPIIsMethod(m string) bool {
	switch m {
	case "GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE":
		return true
	}
	return false
}

// openAPIUnauthenticated are the operations that answer without credentials.
var openAPIUnauthenticated = map[string]bool{
	"GET /healthz":                      true,
	"GET /readyz":                       true,
	"GET /api/v1/openapi.json":          true,
	"GET /api/docs":                     true,
	"GET /api/docs/{asset}":             true,
	"GET /api/v1/mailchimp/unsubscribe": true,
	"GET /.well-known/jwks.json":        true,
	// CORS preflights carry no key (docs/API.md §14).
	"OPTIONS /api/v1/forms/accept-submission": true,
	"OPTIONS /api/v1/challenges/{form_id}":    true,
}

// openAPIWithoutScopes are the operations authenticated by a credential that carries no
// scopes (an OAuth client at its token endpoint): they answer 401, never 403.
var openAPIWithoutScopes = map[string]bool{
	"POST /api/v1/sendgrid/oauth/token": true,
}

func TestOpenAPIOperations(t *testing.T) {
	doc := openAPIDoc(t)
	for path, item := range openAPIDig(doc, "paths") {
		for method, raw := range item.(map[string]any) {
			m := strings.ToUpper(method)
			if !openAPIIsMethod(m) {
				continue
			}
			name := m + " " + path
			op := raw.(map[string]any)
			responses, _ := op["responses"].(map[string]any)
			if len(responses) == 0 {
				t.Errorf("%s: no responses", name)
				continue
			}
			success := false
			for status := range responses {
				if n, err := strconv.Atoi(status); err == nil && n >= 200 && n < 300 {
					success = true
				}
			}
			if !success {
				t.Errorf("%s: no 2xx response", name)
			}
			_, has401 := responses["401"]
			sec, hasSec := op["security"].([]any)
			open := hasSec && len(sec) == 0
			switch {
			case openAPIUnauthenticated[name]:
				if has401 {
					t.Errorf("%s: openAPIUnauthenticated operation declares 401", name)
				}
				if !open {
					t.Errorf("%s: openAPIUnauthenticated operation must declare \"security\": []", name)
				}
			default:
				if !has401 {
					t.Errorf("%s: no 401 response", name)
				}
				if open {
					t.Errorf("%s: authenticated operation declares empty security", name)
				}
				for _, status := range []string{"403", "429", "500", "503"} {
					if _, ok := responses[status]; !ok && (status != "403" || !openAPIWithoutScopes[name]) {
						t.Errorf("%s: no %s response", name, status)
					}
				}
				if m == "POST" {
					for _, status := range []string{"400", "413"} {
						if _, ok := responses[status]; !ok {
							t.Errorf("%s: no %s response", name, status)
						}
					}
				}
			}
			// Every {param} of the path is declared as a path parameter.
			for _, p := range openAPIPathParam.FindAllString(path, -1) {
				if !openAPIDeclaresPathParam(doc, op, item.(map[string]any), strings.Trim(p, "{}")) {
					t.Errorf("%s: path parameter %s not declared", name, p)
				}
			}
		}
	}
}

func openAPIDeclaresPathParam(doc, op, item map[string]any, name string) bool {
	params, _ := op["parameters"].([]any)
	more, _ := item["parameters"].([]any)
	for _, p := range append(slices.Clone(params), more...) {
		pm, _ := p.(map[string]any)
		if ref, ok := pm["$ref"].(string); ok {
			pm, _ = openAPIResolveRef(doc, ref).(map[string]any)
		}
		if pm["in"] == "path" && pm["name"] == name && pm["required"] == true {
			return true
		}
	}
	return false
}

// Every local $ref resolves.
func TestOpenAPIRefsResolve(t *testing.T) {
	doc := openAPIDoc(t)
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if !strings.HasPrefix(ref, "#/") || openAPIResolveRef(doc, ref) == nil {
					t.Errorf("%s: unresolvable $ref %q", at, ref)
				}
			}
			for k, e := range x {
				walk(e, at+"/"+k)
			}
		case []any:
			for i, e := range x {
				walk(e, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(doc, "#")
}

// The accept-submission codes enum is the validator's list.
func TestOpenAPIValidationCodes(t *testing.T) {
	doc := openAPIDoc(t)
	enum, _ := openAPIDig(doc, "components", "schemas")["ValidationCode"].(map[string]any)["enum"].([]any)
	var got []string
	for _, c := range enum {
		got = append(got, c.(string))
	}
	want := slices.Clone(consent.Codes)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ValidationCode enum = %v\nwant consent.Codes = %v", got, want)
	}
}

func TestOpenAPIServed(t *testing.T) {
	app := New(openAPITestDeps())
	resp, err := app.Test(httptest.NewRequest("GET", "/api/v1/openapi.json", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /api/v1/openapi.json: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !bytes.Equal(body, openAPI) {
		t.Fatal("served document differs from the embedded one")
	}
}

// openAPIDig returns the object at the keys, or an empty map.
func openAPIDig(v map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, _ := v[k].(map[string]any)
		if next == nil {
			return map[string]any{}
		}
		v = next
	}
	return v
}

// openAPIResolveRef follows a local JSON pointer ("#/a/b"), nil when it points nowhere.
func openAPIResolveRef(doc map[string]any, ref string) any {
	var cur any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[part]; !ok {
			return nil
		}
	}
	return cur
}
