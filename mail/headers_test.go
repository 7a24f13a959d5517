package mail

import (
	"maps"
	"testing"
)

func TestUnsubscribeHeaders(t *testing.T) {
	got := UnsubscribeHeaders("https://forms.example/p/abc?t=1")
	want := map[string]string{
		"List-Unsubscribe":      "<https://forms.example/p/abc?t=1>",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
	}
	if !maps.Equal(got, want) {
		t.Errorf("UnsubscribeHeaders = %v, want %v", got, want)
	}
}
