package web

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
)

// input describes one labelled form control; the field templates render it with its label,
// hint and error, wired together by id for assistive technology.
type input struct {
	Name         string
	Label        string
	Type         string // text, email, password, tel, number, date, url
	Value        string
	Error        string
	Hint         string
	Autocomplete string
	Required     bool
	Autofocus    bool
	ReadOnly     bool
	Wide         bool             // in a row of filters, takes twice the room of the others
	Attrs        templ.Attributes // extra attributes, e.g. pattern or min
	// ID is the element id when two forms of a page share a control name; "" derives it from Name.
	ID string
}

// id is the control's element id: ID, or its name with dots made dashes (field.0.name →
// field-0-name).
func (i input) id() string {
	if i.ID != "" {
		return i.ID
	}
	return fieldID(i.Name)
}

func fieldID(name string) string { return strings.ReplaceAll(name, ".", "-") }

// value never echoes a password back into the page.
func (i input) value() string {
	if i.Type == "password" {
		return ""
	}
	return i.Value
}

// describedBy lists the ids of the hint and error, for aria-describedby.
func (i input) describedBy() string {
	var ids []string
	if i.Hint != "" {
		ids = append(ids, i.id()+"-hint")
	}
	if i.Error != "" {
		ids = append(ids, i.id()+"-error")
	}
	return strings.Join(ids, " ")
}

// htmxConfig keeps pages (which can hold personal data and one-time secrets) out of htmx's
// history cache, leaves styling to app.css so a strict CSP holds, and swaps error pages too.
const htmxConfig = `{"historyCacheSize":0,"refreshOnHistoryMiss":true,"includeIndicatorStyles":false,` +
	`"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},` +
	`{"code":"[45]..","swap":true,"error":true}]}`

// csrfHeaders is the hx-headers value that makes every htmx request carry the CSRF token.
func csrfHeaders(token string) string {
	b, _ := json.Marshal(map[string]string{CSRFHeader: token}) // a map of strings always marshals
	return string(b)
}

// CSRFField and CSRFHeader name where the CSRF token travels: the hidden input of every POST
// form and the header of every htmx request.
const (
	CSRFField  = "_csrf"
	CSRFHeader = "X-CSRF-Token"
)

// pageTitle is the document title.
func pageTitle(title string) string {
	if title == "" {
		return "consentforms admin"
	}
	return title + " · consentforms admin"
}

// selected reports whether v is among vs.
func selected(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// actionOptions turns audit action names into select options.
func actionOptions(actions []string) []Option {
	opts := make([]Option, len(actions))
	for i, a := range actions {
		opts[i] = Option{Value: a, Label: ActionLabel(a)}
	}
	return opts
}

// rowName names an input of custom field row i: field.<i>.<part>.
func rowName(i int, part string) string { return "field." + strconv.Itoa(i) + "." + part }

// keyNow is the time keys are judged expired at.
func keyNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// keyLabel names a key in confirmations: its name, or its id.
func keyLabel(k KeyItem) string {
	if k.Name != "" {
		return "“" + k.Name + "”"
	}
	return k.ID
}
