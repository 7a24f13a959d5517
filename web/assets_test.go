package web

import (
	"regexp"
	"strings"
	"testing"
)

func TestAssetPathIsContentHashed(t *testing.T) {
	re := regexp.MustCompile(`^/admin/static/app\.[0-9a-f]{8}\.css$`)
	css := AssetPath("app.css")
	if !re.MatchString(css) {
		t.Fatalf("AssetPath(app.css) = %q", css)
	}
	if js := AssetPath("htmx.min.js"); !regexp.MustCompile(`^/admin/static/htmx\.min\.[0-9a-f]{8}\.js$`).MatchString(js) {
		t.Errorf("AssetPath(htmx.min.js) = %q", js)
	}
	data, ct, ok := Asset(strings.TrimPrefix(css, StaticPrefix))
	if !ok || ct != "text/css; charset=utf-8" || !strings.Contains(string(data), ":root") {
		t.Errorf("Asset(%q) = %d bytes, %q, %v", css, len(data), ct, ok)
	}
	data[0] = 'X' // callers get a copy
	if again, _, _ := Asset(strings.TrimPrefix(css, StaticPrefix)); again[0] == 'X' {
		t.Errorf("Asset returns shared memory")
	}
	if _, _, ok := Asset("app.css"); ok {
		t.Errorf("unhashed name served")
	}
	js, ct, ok := Asset(strings.TrimPrefix(AssetPath("htmx.min.js"), StaticPrefix))
	if !ok || ct != "text/javascript; charset=utf-8" || !strings.Contains(string(js), "htmx") {
		t.Errorf("htmx asset: %v %q", ok, ct)
	}
}

func TestPaths(t *testing.T) {
	cases := map[string]string{
		FormPath("a/b c"):                   "/admin/forms/a%2Fb%20c",
		KeyRevokePath("k1"):                 "/admin/keys/k1/revoke",
		MailchimpTokenRevokePath("t1"):      "/admin/webhooks/mailchimp-tokens/t1/revoke",
		SubmissionPath("s:1"):               "/admin/submissions/s:1",
		SubmissionFilter{}.URL(""):          "/admin/submissions",
		AuditFilter{Actor: "a&b"}.URL("c3"): "/admin/audit?actor=a%26b&cursor=c3",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestBuildNav(t *testing.T) {
	nav := BuildNav(NavAudit, func(k string) bool { return k != NavTenants })
	if len(nav) != len(NavCatalogue())-1 {
		t.Fatalf("%d entries", len(nav))
	}
	for _, n := range nav {
		if n.Key == NavTenants || n.Active != (n.Key == NavAudit) {
			t.Errorf("entry %+v", n)
		}
	}
}
