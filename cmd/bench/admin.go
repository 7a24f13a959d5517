package main

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// staffClient is a signed-in admin UI session.
type staffClient struct {
	base   string
	client *http.Client
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// csrfToken reads the session's CSRF token from an admin page's forms.
func (c *staffClient) csrfToken(path string) (string, error) {
	resp, err := c.client.Get(c.base + path)
	if err != nil {
		return "", err
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		return "", fmt.Errorf("%s has no CSRF field", path)
	}
	return string(m[1]), nil
}

// signIn signs the bench's tenant admin in through the login form.
func signIn(base string) (*staffClient, error) {
	jar, _ := cookiejar.New(nil)
	c := &staffClient{base: base, client: &http.Client{Jar: jar, Timeout: 10 * time.Minute}}
	token, err := c.csrfToken("/admin/login")
	if err != nil {
		return nil, err
	}
	resp, err := c.client.PostForm(base+"/admin/login", url.Values{"email": {staffEmail}, "password": {staffPassword}, "_csrf": {token}})
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.Request.URL.Path == "/admin/login" {
		return nil, fmt.Errorf("sign-in failed: %d", resp.StatusCode)
	}
	return c, nil
}

// get fetches an admin page and returns its size and duration.
func (c *staffClient) get(path string) (int, time.Duration, error) {
	start := time.Now()
	resp, err := c.client.Get(c.base + path)
	if err != nil {
		return 0, 0, err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != 200 {
		return 0, 0, fmt.Errorf("GET %s: %d", path, resp.StatusCode)
	}
	return int(n), d, nil
}

// adminPages times each admin page that reads many records: the median of n loads.
func adminPages(c *staffClient, submissionID string, n int) error {
	deepSubmissions, err := deepLink(c, "/admin/submissions", 1000)
	if err != nil {
		return err
	}
	deepCanvassing, err := deepLink(c, "/admin/submissions?kind=canvassingSubmission", 1000)
	if err != nil {
		return err
	}
	deepAudit, err := deepLink(c, "/admin/audit", 1000)
	if err != nil {
		return err
	}
	pages := []struct{ name, path string }{
		{"dashboard", "/admin/"},
		{"submissions, first page", "/admin/submissions"},
		{"submissions, 1000 pages older (deep cursor)", deepSubmissions},
		{"digitisation submissions", "/admin/submissions?kind=digitisationSubmission"},
		{"canvassing submissions", "/admin/submissions?kind=canvassingSubmission"},
		{"canvassing submissions, 1000 pages older (deep cursor)", deepCanvassing},
		{"phone call tasks", "/admin/submissions?kind=phoneCallTask"},
		{"submissions, form filter", "/admin/submissions?form=petition"},
		{"submissions, e-mail consent granted", "/admin/submissions?consent=generalContactEmail&status=granted"},
		{"submissions, e-mail consent expired", "/admin/submissions?consent=generalContactEmail&status=expired"},
		{"submissions, e-mail consent revoked", "/admin/submissions?consent=generalContactEmail&status=revoked"},
		{"submissions, any consent not granted", "/admin/submissions?status=not_granted"},
		{"submission detail", "/admin/submissions/" + url.PathEscape(submissionID)},
		{"audit log", "/admin/audit"},
		{"audit log, 1000 pages older (deep cursor)", deepAudit},
		{"audit log, action filter", "/admin/audit?action=gdpr.anonymised"},
		{"audit log, actor filter", "/admin/audit?actor=key%3Abench"},
		{"audit log, date range", "/admin/audit?from=" + time.Now().UTC().Format(time.DateOnly) + "&to=" + time.Now().UTC().Format(time.DateOnly)},
	}
	for _, p := range pages {
		var ds []time.Duration
		for range n {
			if _, d, err := c.get(p.path); err != nil {
				return err
			} else {
				ds = append(ds, d)
			}
		}
		printLatency("admin: "+p.name, ds)
	}
	return nil
}

// olderLink finds a list page's link to its older rows.
var olderLink = regexp.MustCompile(`<a href="([^"]+)" rel="next" data-testid="pager-next"`)

// deepLink follows a list's links to older rows from path, pages times or to its last page,
// and returns the address reached: a list page far from the newest rows.
func deepLink(c *staffClient, path string, pages int) (string, error) {
	for range pages {
		resp, err := c.client.Get(c.base + path)
		if err != nil {
			return "", err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return "", err
		}
		if resp.StatusCode != 200 {
			return "", fmt.Errorf("GET %s: %d", path, resp.StatusCode)
		}
		m := olderLink.FindSubmatch(body)
		if m == nil {
			break
		}
		path = html.UnescapeString(string(m[1]))
	}
	return path, nil
}

// findPerson times the admin's person search by e-mail, posted as the page posts it: the
// latency of n searches, each of another person (none of those personOps erased), each
// answered with that person's 8 records. On a kept store measured again (rerun), the first
// run's retention run has anonymised most persons' 2 phone call tasks, which then carry no
// e-mail address: 6 records answer too.
func findPerson(c *staffClient, people, n int, rerun bool) error {
	token, err := c.csrfToken("/admin/submissions")
	if err != nil {
		return err
	}
	var ds []time.Duration
	for i := range n {
		p := 2 + personOffset + i*(people/(n+1))
		start := time.Now()
		resp, err := c.client.PostForm(c.base+"/admin/submissions/find", url.Values{"_csrf": {token}, "email": {email(p)}})
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err != nil {
			return err
		}
		if rows := bytes.Count(body, []byte(`data-testid="person-row"`)); resp.StatusCode != 200 || rows != 8 && !(rerun && rows == 6) {
			return fmt.Errorf("find person %d: %d, %d records listed, want 8", p, resp.StatusCode, rows)
		}
		ds = append(ds, d)
	}
	printLatency("admin: find a person by e-mail (8 records)", ds)
	return nil
}

// auditExport downloads the whole audit log as CSV and reports rows per second.
func auditExport(c *staffClient) error {
	start := time.Now()
	resp, err := c.client.Get(c.base + "/admin/audit/export.csv")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	d := time.Since(start)
	rows := strings.Count(string(b), "\n") - 1
	fmt.Printf("%-44s %d rows in %.2f s: %.0f rows/s\n", "admin: audit CSV export, whole log", rows, d.Seconds(), float64(rows)/d.Seconds())
	return nil
}
