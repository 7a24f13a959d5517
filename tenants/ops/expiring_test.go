package ops

import (
	"testing"
	"time"
)

// TestParseExpiring: the re-permission list's filter rules, shared by the API and the staff
// UI: each violation names its input, in order.
func TestParseExpiring(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r, vs := ParseExpiring("email", "petition", "30d", now)
	if len(vs) != 0 || !r.Until.Equal(now.AddDate(0, 0, 30)) || r.Channel != "email" || r.FormID != "petition" {
		t.Fatalf("valid filter: %+v %v", r, vs)
	}
	_, vs = ParseExpiring("fax", "not a form id!", "soon", now)
	var fields []string
	for _, v := range vs {
		fields = append(fields, v.Field)
	}
	if len(fields) != 3 || fields[0] != "channel" || fields[1] != "within" || fields[2] != "form" {
		t.Fatalf("violations %v", vs)
	}
}
