package webhook

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// MaxEndpoints bounds a tenant's endpoints: every change is delivered to each of them.
const MaxEndpoints = 10

// ParseEvents reads a comma-separated list of event types, or "all". The result is in the
// order of tenants.EventTypes(), without repeats.
func ParseEvents(list string) ([]string, error) {
	want := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case f == "all":
			for _, t := range tenants.EventTypes() {
				want[t] = true
			}
		case slices.Contains(tenants.EventTypes(), f):
			want[f] = true
		default:
			return nil, errors.New("unknown event type " + quote(f) + "; use " + strings.Join(tenants.EventTypes(), ", ") + " or all")
		}
	}
	var out []string
	for _, t := range tenants.EventTypes() {
		if want[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("name at least one event type")
	}
	return out, nil
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}

// NewEndpoint checks url against the policy and returns a new endpoint with a fresh secret,
// to be shown once. existing is how many endpoints the tenant has.
func NewEndpoint(p Policy, tenantID, url string, events []string, existing int, now time.Time) (tenants.Endpoint, error) {
	url = strings.TrimSpace(url)
	if err := p.CheckURL(url); err != nil {
		return tenants.Endpoint{}, errors.New("the URL " + err.Error())
	}
	if existing >= MaxEndpoints {
		return tenants.Endpoint{}, errors.New("a tenant has at most 10 endpoints")
	}
	return tenants.NewEndpoint(tenantID, url, events, NewSecret(), now.UTC().Truncate(time.Millisecond))
}
