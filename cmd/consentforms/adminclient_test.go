package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// adminClient is a browser without a browser: a cookie jar, no redirects followed, and the
// CSRF token of the last page it read.
type adminClient struct {
	t    *testing.T
	s    *testServer
	http *http.Client
	csrf string
	// header is sent with every request ("Name: value"), e.g. X-Forwarded-For.
	header []string
}

func newAdminClient(t *testing.T, s *testServer, header ...string) *adminClient {
	jar, _ := cookiejar.New(nil)
	return &adminClient{t: t, s: s, header: header, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfValue = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// get reads a page and keeps its CSRF token.
func (a *adminClient) get(path string) (int, string) {
	a.t.Helper()
	st, body, _ := a.do("GET", path, "", nil)
	if m := csrfValue.FindStringSubmatch(body); m != nil {
		a.csrf = m[1]
	}
	return st, body
}

// post sends form (with the CSRF token of the last page) and answers the status, the body
// and the Location header.
func (a *adminClient) post(path string, form url.Values) (int, string, string) {
	a.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if form.Get("_csrf") == "" {
		form.Set("_csrf", a.csrf)
	}
	return a.do("POST", path, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

func (a *adminClient) do(method, path, contentType string, body io.Reader) (int, string, string) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.s.URL+path, body)
	if err != nil {
		a.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for _, h := range a.header {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := a.http.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Location")
}

// signIn signs in through the login form and answers the status and where it leads.
func (a *adminClient) signIn(email, password string) (int, string) {
	a.t.Helper()
	a.get("/admin/login")
	st, _, loc := a.post("/admin/login", url.Values{"email": {email}, "password": {password}})
	return st, loc
}

// sessionCookie is the client's admin session cookie ("" when signed out).
func (a *adminClient) sessionCookie() *http.Cookie {
	u, _ := url.Parse(a.s.URL + "/admin/")
	for _, c := range a.http.Jar.Cookies(u) {
		if c.Name == "cf_session" {
			return c
		}
	}
	return nil
}

// withCookie is a fresh client carrying a copy of c (a stolen cookie) on server s.
func withCookie(t *testing.T, s *testServer, c *http.Cookie) *adminClient {
	a := newAdminClient(t, s)
	u, _ := url.Parse(s.URL + "/admin/")
	a.http.Jar.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value, Path: "/admin"}})
	return a
}

// envList is s's environment as KEY=value strings, for a second server on the same store.
func (s *testServer) envList() []string {
	var out []string
	for k, v := range s.env {
		out = append(out, k+"="+v)
	}
	return out
}
