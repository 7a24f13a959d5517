package web

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// mask stands in for hidden characters.
const mask = "***"

// MaskEmail hides an e-mail address but the first character of its local part and of its
// domain, and the top-level domain: j***@e***.org. A personal domain (jane@janedoe.name)
// would name the person on its own.
func MaskEmail(s string) string {
	if s == "" {
		return ""
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return MaskText(s)
	}
	domain := s[at+1:]
	if dot := strings.LastIndexByte(domain, '.'); dot > 0 {
		domain = MaskText(domain[:dot]) + domain[dot:]
	} else {
		domain = MaskText(domain)
	}
	return MaskText(s[:at]) + "@" + domain
}

// MaskPhone hides a phone number but its first two and last two digits: +49******78.
// The number of stars is fixed so that the length is not revealed either.
func MaskPhone(s string) string {
	if s == "" {
		return ""
	}
	lead := ""
	if strings.HasPrefix(s, "+") {
		lead, s = "+", s[1:]
	}
	if len(s) < 7 {
		return lead + "******"
	}
	return lead + s[:2] + "******" + s[len(s)-2:]
}

// MaskText hides all of s but its first character: J***.
func MaskText(s string) string {
	if s == "" {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(s)
	return string(r) + mask
}

// maskAll hides s entirely; "" stays "" so that absent values still read as absent.
func maskAll(s string) string {
	if s == "" {
		return ""
	}
	return mask
}

// orDash shows an absent value as an em dash.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// formatDate and formatClock render a time in UTC to the second, in two parts that a narrow
// table cell may wrap between: 2025-03-14 and 09:26:53 UTC.
func formatDate(t time.Time) string  { return t.UTC().Format(time.DateOnly) }
func formatClock(t time.Time) string { return t.UTC().Format("15:04:05 UTC") }

// formatTime renders a time in UTC to the second.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return formatDate(t) + " " + formatClock(t)
}

// fullTime is the exact timestamp shown on hover: to the millisecond, in UTC.
func fullTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// isoTime is the machine-readable form for <time datetime>.
func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// StatusLabel is the human label of a consent status.
func StatusLabel(status string) string {
	switch status {
	case StatusGranted:
		return "Granted"
	case StatusExpired:
		return "Expired"
	case StatusRevoked:
		return "Revoked"
	case StatusNotGranted, "":
		return "Not granted"
	case StatusPending:
		return "Pending confirmation"
	}
	return status
}

// statusClass is the badge class of a consent status.
func statusClass(status string) string {
	if status == "" {
		status = StatusNotGranted
	}
	return "badge badge-" + strings.ReplaceAll(status, "_", "-")
}

// RoleLabel is the human label of a staff role.
func RoleLabel(role string) string {
	switch role {
	case "platform_admin":
		return "Platform admin"
	case "tenant_admin":
		return "Tenant admin"
	case "support":
		return "Support"
	case "viewer":
		return "Viewer"
	}
	return role
}

// Plural is n with the singular or plural phrase: "1 record", "3 records".
func Plural(n int, one, many string) string { return plural(n, one, many) }

// plural is n with the singular or plural phrase: "1 record", "3 records".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// countNouns name the counts of audit entries and person searches: the record kinds in
// display order, then the records a revocation changed.
var countNouns = []struct{ key, one, many string }{
	{"formSubmissions", "form submission", "form submissions"},
	{"digitisationSubmissions", "digitisation submission", "digitisation submissions"},
	{"canvassingSubmissions", "canvassing submission", "canvassing submissions"},
	{"phoneCallTasks", "phone call task", "phone call tasks"},
	{"revoked", "record", "records"},
}

// formatCounts renders the non-zero counts in words ("3 form submissions, 1 phone call
// task"); a count it has no noun for reads "key: n", after the others in key order.
func formatCounts(c map[string]int) string {
	var parts []string
	known := map[string]bool{}
	for _, n := range countNouns {
		known[n.key] = true
		if c[n.key] != 0 {
			parts = append(parts, plural(c[n.key], n.one, n.many))
		}
	}
	rest := make([]string, 0, len(c))
	for k, n := range c {
		if n != 0 && !known[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, k+": "+strconv.Itoa(c[k]))
	}
	return strings.Join(parts, ", ")
}

// keepHyphens keeps "e-mail" on one line: a narrow cell would break it after "e-".
func keepHyphens(s string) string { return strings.ReplaceAll(s, "e-mail", "e\u2011mail") }

// PayloadFields turns a record's custom fields into sorted rows; personal(key, value) decides
// which are masked for viewers without access to personal data (nil: none).
func PayloadFields(payload map[string]any, personal func(key string, value any) bool) []PayloadField {
	fields := make([]PayloadField, 0, len(payload))
	for k, v := range payload {
		fields = append(fields, PayloadField{
			Key:      k,
			Value:    FormatValue(v),
			Personal: personal != nil && personal(k, v),
		})
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].Key < fields[j].Key })
	return fields
}

// FormatValue renders a JSON-like value: strings as they are, null as "null", others as JSON.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int, int32, int64:
		return fmt.Sprint(x)
	case time.Time:
		return isoTime(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// reveal shows a personal value in full when show is set, else masked; absent is a dash.
func reveal(show bool, s string, maskFn func(string) string) string {
	return orDash(revealed(show, s, maskFn))
}

// revealed is the value reveal shows, "" when absent.
func revealed(show bool, s string, maskFn func(string) string) string {
	if !show {
		return maskFn(s)
	}
	return s
}

// revealField shows a custom field, masking it when it is personal and show is not set.
func revealField(show bool, f PayloadField) string {
	if f.Personal && !show {
		return maskAll(f.Value)
	}
	return f.Value
}

// fieldTime is a shown field's value as a time when it is one (an RFC 3339 date-time, such as
// a canvassing record's visited_at), so that it reads like every other time on the page.
func fieldTime(show bool, f PayloadField) (time.Time, bool) {
	if f.Personal && !show || len(f.Value) < len("2006-01-02T15:04:05Z") || len(f.Value) > 40 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, f.Value)
	return t, err == nil
}

// roleOptions turns role names into select options with their labels.
func roleOptions(roles []string) []Option {
	opts := make([]Option, len(roles))
	for i, r := range roles {
		opts[i] = Option{Value: r, Label: RoleLabel(r)}
	}
	return opts
}

// errorMessage is the page's message, or a generic one for its status.
func errorMessage(p ErrorPage) string {
	switch {
	case p.Message != "":
		return p.Message
	case p.Status == 404:
		return "There is nothing here."
	case p.Status >= 500:
		return "Something went wrong on our side. Please try again."
	}
	return "The request could not be completed."
}
