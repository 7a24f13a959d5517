package web

import (
	"slices"
	"testing"
)

func TestLineDiff(t *testing.T) {
	for _, c := range []struct {
		name, old, new string
		want           []DiffLine
	}{
		{"first version", "", "a\nb", []DiffLine{{"+", "a"}, {"+", "b"}}},
		{"unchanged", "a\nb", "a\nb", []DiffLine{{"=", "a"}, {"=", "b"}}},
		{"a line changed", "a\nb\nc", "a\nB\nc", []DiffLine{{"=", "a"}, {"-", "b"}, {"+", "B"}, {"=", "c"}}},
		{"a line added at the end", "a", "a\nb", []DiffLine{{"=", "a"}, {"+", "b"}}},
		{"a line removed", "a\nb\nc", "a\nc", []DiffLine{{"=", "a"}, {"-", "b"}, {"=", "c"}}},
		{"a trailing newline is a line", "a", "a\n", []DiffLine{{"=", "a"}, {"+", ""}}},
	} {
		if got := LineDiff(c.old, c.new); !slices.Equal(got, c.want) {
			t.Errorf("%s: LineDiff = %v, want %v", c.name, got, c.want)
		}
	}
}
