package web

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// Every POST form carries the CSRF token, and htmx requests carry it as a header.
func TestEveryPostFormCarriesCSRF(t *testing.T) {
	for name, page := range samplePages() {
		t.Run(name, func(t *testing.T) {
			doc, _ := render(t, page)
			forms := doc.Find("form")
			posts := 0
			forms.Each(func(i int, f *goquery.Selection) {
				if !strings.EqualFold(f.AttrOr("method", "get"), "post") {
					if _, ok := f.Attr("hx-post"); ok {
						t.Errorf("form %d has hx-post without method=post", i)
					}
					return
				}
				posts++
				in := f.Find(`input[type="hidden"][name="_csrf"]`)
				if in.Length() != 1 || in.AttrOr("value", "") != testCSRF {
					t.Errorf("POST form %d (%s) lacks the _csrf input", i, f.AttrOr("data-testid", "?"))
				}
			})
			if h := doc.Find("body").AttrOr("hx-headers", ""); !strings.Contains(h, `"X-CSRF-Token":"`+testCSRF+`"`) {
				t.Errorf("body hx-headers = %q", h)
			}
			if name != "login" && posts == 0 {
				t.Errorf("no POST form at all (sign-out should be one)")
			}
		})
	}
}

// Every visible control has an id and a <label for> pointing at it; errors sit beside fields.
func TestEveryControlIsLabelled(t *testing.T) {
	for name, page := range samplePages() {
		t.Run(name, func(t *testing.T) {
			doc, _ := render(t, page)
			doc.Find("input, select, textarea").Each(func(_ int, c *goquery.Selection) {
				switch c.AttrOr("type", "") {
				case "hidden", "submit", "button":
					return
				}
				id := c.AttrOr("id", "")
				if id == "" {
					t.Errorf("control %q has no id", c.AttrOr("name", "?"))
					return
				}
				if doc.Find(`label[for="`+id+`"]`).Length() != 1 {
					t.Errorf("control #%s has no <label for>", id)
				}
				if c.AttrOr("aria-invalid", "") == "true" {
					desc := c.AttrOr("aria-describedby", "")
					if !strings.Contains(desc, id+"-error") || doc.Find("#"+id+"-error").Length() != 1 {
						t.Errorf("invalid control #%s not described by its error (%q)", id, desc)
					}
				}
			})
			ids := map[string]bool{}
			doc.Find("[id]").Each(func(_ int, s *goquery.Selection) {
				id := s.AttrOr("id", "")
				if ids[id] {
					t.Errorf("duplicate id %q", id)
				}
				ids[id] = true
			})
		})
	}
}

// Every page is a complete, responsive document using the hashed, embedded assets.
func TestPagesUseLayout(t *testing.T) {
	for name, page := range samplePages() {
		t.Run(name, func(t *testing.T) {
			doc, html := render(t, page)
			if !strings.HasPrefix(strings.ToLower(html), "<!doctype html>") {
				t.Errorf("no doctype")
			}
			if doc.Find(`meta[name="viewport"]`).Length() != 1 {
				t.Errorf("no viewport meta")
			}
			if href := doc.Find(`link[rel="stylesheet"]`).AttrOr("href", ""); href != AssetPath("app.css") {
				t.Errorf("stylesheet %q", href)
			}
			if src := doc.Find("script").AttrOr("src", ""); src != AssetPath("htmx.min.js") {
				t.Errorf("script %q", src)
			}
			if strings.Contains(html, "http://") || strings.Contains(html, "cdn") {
				t.Errorf("page refers to an external resource")
			}
			mustOne(t, doc, "page-title")
		})
	}
}

func TestNavShowsOnlyGivenItems(t *testing.T) {
	allowed := map[string]bool{NavDashboard: true, NavSubmissions: true, NavAudit: true}
	l := testLayout("Submissions", NavSubmissions)
	l.Nav = BuildNav(NavSubmissions, func(k string) bool { return allowed[k] })
	doc, _ := render(t, Unsubscribe(UnsubscribePage{Layout: l}))
	links := byID(doc, "nav").Find("a")
	if links.Length() != len(allowed) {
		t.Fatalf("nav has %d links, want %d", links.Length(), len(allowed))
	}
	for _, n := range NavCatalogue() {
		got := byID(doc, "nav-"+n.Key).Length()
		if want := map[bool]int{true: 1, false: 0}[allowed[n.Key]]; got != want {
			t.Errorf("nav-%s: %d, want %d", n.Key, got, want)
		}
	}
	if byID(doc, "nav-submissions").AttrOr("aria-current", "") != "page" {
		t.Errorf("active entry not marked")
	}
	if _, ok := byID(doc, "nav-audit").Attr("aria-current"); ok {
		t.Errorf("inactive entry marked")
	}
}

func TestSignedOutLayoutHasNoUserOrNav(t *testing.T) {
	doc, _ := render(t, samplePages()["login"])
	if byID(doc, "user").Length() != 0 || byID(doc, "nav").Length() != 0 || byID(doc, "logout-form").Length() != 0 {
		t.Errorf("signed-out page shows user, nav or sign-out")
	}
}

func TestFlash(t *testing.T) {
	for _, kind := range []FlashKind{FlashSuccess, FlashError} {
		l := testLayout("x", "")
		l.Flash = Flash{Kind: kind, Text: "Saved <b>"}
		doc, html := render(t, Tenants(TenantsPage{Layout: l}))
		if got := mustOne(t, doc, "flash-"+string(kind)).Text(); got != "Saved <b>" {
			t.Errorf("flash text %q", got)
		}
		if strings.Contains(html, "Saved <b>") {
			t.Errorf("flash not escaped")
		}
	}
	doc, _ := render(t, Tenants(TenantsPage{Layout: testLayout("x", "")}))
	if doc.Find(".flash").Length() != 0 {
		t.Errorf("empty flash rendered")
	}
}

func TestSignOutIsPostButton(t *testing.T) {
	doc, _ := render(t, samplePages()["dashboard"])
	f := mustOne(t, doc, "logout-form")
	if f.AttrOr("method", "") != "post" || f.AttrOr("action", "") != PathLogout {
		t.Errorf("sign-out form %v %v", f.AttrOr("method", ""), f.AttrOr("action", ""))
	}
	mustOne(t, doc, "logout-button")
	if got := mustOne(t, doc, "user-role").Text(); got != "Tenant admin" {
		t.Errorf("role %q", got)
	}
}

func TestErrorPages(t *testing.T) {
	doc, _ := render(t, samplePages()["error"])
	mustOne(t, doc, "error-page")
	if got := mustOne(t, doc, "error-status").Text(); got != "404 Not Found" {
		t.Errorf("status %q", got)
	}
	if got := mustOne(t, doc, "error-request-id").Text(); got != "req-9" {
		t.Errorf("request id %q", got)
	}
	doc, _ = render(t, samplePages()["forbidden"])
	mustOne(t, doc, "forbidden")
	if !strings.Contains(mustOne(t, doc, "error-message").Text(), "role does not allow") {
		t.Errorf("403 message missing")
	}
}
