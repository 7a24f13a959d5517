package main

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMetricsCarryNoPersonalData: after requests that carry e-mail addresses and phone
// numbers in bodies, query strings, paths and headers (stored, read, erased, rate limited,
// refused, unknown routes), /metrics counts them under route patterns and fixed names, and
// none of the addresses, numbers, tenant ids or keys appears anywhere in it.
func TestMetricsCarryNoPersonalData(t *testing.T) {
	s := startServer(t)
	tenant := s.tenant()
	key := s.key(tenant, "all")
	slowTenant := s.tenant("--rate-limit", "1")
	slowKey := s.key(slowTenant, "all")
	emails := []string{"metrics.alice@example.org", "bob+tag@example.net", "carol@example.com"}
	for i, e := range emails {
		r := s.do("POST", "/api/v1/forms/accept-submission", key, map[string]any{"form_id": "petition", "email": e,
			"phone": "+4915112345670", "first_name": "Alice", "consent_to_general_contact_email": true,
			"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "30d",
			"submission_id": "sub-" + strings.Repeat("x", i+1)})
		if r.Status != 200 && r.Status != 429 {
			t.Fatalf("submission: %d %s", r.Status, r.Body)
		}
	}
	s.do("GET", "/api/v1/consents?email="+url.QueryEscape(emails[0]), key, nil)
	s.do("GET", "/api/v1/forms/submissions/"+url.PathEscape(emails[1]), key, nil)
	s.do("POST", "/api/v1/gdpr/search-and-anonymise", key, map[string]any{"email": emails[2]})
	s.do("POST", "/api/v1/brevo/unsubscribe", key, map[string]any{"email": emails[0]})
	s.do("GET", "/"+emails[1]+"/profile", "", nil)
	s.do("PROPFIND", "/api/v1/consents", key, nil) // Fiber refuses unknown methods before any route
	s.do("POST", "/admin/login", "", "email="+url.QueryEscape(emails[0])+"&password=x", "Content-Type: application/x-www-form-urlencoded")
	// Over the tenant's rate limit of 1/s: some of these answer 429.
	for range 4 {
		s.do("GET", "/api/v1/consents?email="+url.QueryEscape(emails[2]), slowKey, nil)
	}

	r := s.do("GET", "/metrics", "", nil)
	if r.Status != 200 {
		t.Fatalf("GET /metrics from loopback: %d %s", r.Status, r.Body)
	}
	body := string(r.Body)
	secrets := append(emails, "example.org", "example.net", "example.com", "4915112345670", "Alice", "profile", tenant, key, slowTenant, slowKey, "PROPFIND")
	for _, v := range secrets {
		if strings.Contains(body, v) {
			t.Errorf("/metrics contains %q", v)
		}
	}
	for _, want := range []string{
		`consentforms_http_requests_total{method="POST",route="/api/v1/forms/accept-submission",status="200"}`,
		`consentforms_http_requests_total{method="GET",route="/api/v1/forms/submissions/:id",status="404"}`,
		`consentforms_http_requests_total{method="GET",route="unmatched",status="404"}`,
		`consentforms_http_request_duration_seconds_bucket{method="GET",route="/api/v1/consents",le="+Inf"}`,
		`consentforms_writer_batch_size_count`,
		`consentforms_writer_commit_duration_seconds_bucket`,
		`consentforms_events_total{event="erasure"} 1`,
		`consentforms_events_total{event="erased_record"} 1`,
		`consentforms_events_total{event="unsubscribe"} 1`,
		`consentforms_events_total{event="consent_expired"} 0`,
		`consentforms_refusals_total{reason="login_throttle"} 0`,
		`consentforms_build_info{commit=`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if !strings.Contains(body, `status="429"`) || strings.Contains(body, `consentforms_refusals_total{reason="rate_limit"} 0`) {
		t.Errorf("the rate-limited requests are not counted:\n%s", grepLines(body, "429", "refusals"))
	}
}

func grepLines(body string, subs ...string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		for _, s := range subs {
			if strings.Contains(l, s) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// TestMetricsOnlyForLoopback: on the main listener /metrics answers 404 to a request a proxy
// forwarded (a proxy on the same host connects from loopback too); with
// CONSENTFORMS_METRICS_ADDR it is served there and not on the main listener at all.
func TestMetricsOnlyForLoopback(t *testing.T) {
	s := startServer(t)
	for _, h := range []string{"X-Forwarded-For: 203.0.113.9", "Forwarded: for=203.0.113.9"} {
		if r := s.do("GET", "/metrics", "", nil, h); r.Status != 404 || r.JSON(t)["error"] != "NotFound" {
			t.Errorf("/metrics with %s: %d %s, want the 404 body", h, r.Status, r.Body)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s2 := startServer(t, "CONSENTFORMS_METRICS_ADDR="+addr)
	if r := s2.do("GET", "/metrics", "", nil); r.Status != 404 {
		t.Errorf("main listener /metrics with a metrics address: %d", r.Status)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "consentforms_http_requests_total") {
		t.Errorf("metrics listener: %d %.200s", resp.StatusCode, b)
	}
}

// TestMetricsCountLoginThrottle: admin sign-ins refused by the failure throttle are counted
// as login_throttle refusals, and the e-mail address tried appears nowhere in /metrics.
func TestMetricsCountLoginThrottle(t *testing.T) {
	s := startServer(t)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page, err := client.Get(s.URL + "/admin/login")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(page.Body)
	page.Body.Close()
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no CSRF token on the login page:\n%s", b)
	}
	const tried = "throttled.person@example.org"
	throttled := false
	for i := 0; i < 40 && !throttled; i++ {
		resp, err := client.PostForm(s.URL+"/admin/login", url.Values{"email": {tried}, "password": {"wrong"}, "_csrf": {string(m[1])}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		throttled = resp.StatusCode == 429
	}
	if !throttled {
		t.Fatal("no 429 after 40 failed sign-ins")
	}
	body := string(s.do("GET", "/metrics", "", nil).Body)
	if !regexp.MustCompile(`consentforms_refusals_total\{reason="login_throttle"\} [1-9]`).MatchString(body) {
		t.Errorf("throttled sign-ins not counted:\n%s", grepLines(body, "refusals"))
	}
	if strings.Contains(body, tried) || strings.Contains(body, "example.org") {
		t.Error("/metrics holds the e-mail address tried")
	}
}

// BenchmarkMetricsRequest is what counting one answered request costs the handler.
func BenchmarkMetricsRequest(b *testing.B) {
	m := newMetrics()
	for b.Loop() {
		m.Request("POST", "/api/v1/forms/accept-submission", 200, 3*time.Millisecond)
	}
}
