package web

import "testing"

func TestListTotalText(t *testing.T) {
	for _, c := range []struct {
		total ListTotal
		want  string
	}{
		{ListTotal{}, "0 submissions"}, {ListTotal{N: 1}, "1 submission"}, {ListTotal{N: 999}, "999 submissions"},
		{ListTotal{N: 1000, More: true}, "1,000+ submissions"}, {ListTotal{N: 1234567}, "1,234,567 submissions"},
	} {
		if got := c.total.Text("submission", "submissions"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.total, got, c.want)
		}
	}
}
