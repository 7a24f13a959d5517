package web

import "strings"

// DiffLine is one line of a text diff: Op is "=" (in both), "-" (only in the old text) or "+"
// (only in the new one).
type DiffLine struct {
	Op   string
	Text string
}

// maxDiffCells bounds the work of LineDiff (old lines × new lines); past it, the diff is the
// old text removed and the new one added.
const maxDiffCells = 4_000_000

// LineDiff is the line diff of old and new by their longest common subsequence of lines: what
// staff read before publishing a new version of a consent text.
func LineDiff(old, new string) []DiffLine {
	a, b := splitLines(old), splitLines(new)
	if len(a)*len(b) > maxDiffCells {
		return replaceAll(a, b)
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []DiffLine
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, DiffLine{"=", a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, DiffLine{"-", a[i]})
			i++
		default:
			out = append(out, DiffLine{"+", b[j]})
			j++
		}
	}
	return append(out, replaceAll(a[i:], b[j:])...)
}

func replaceAll(a, b []string) []DiffLine {
	var out []DiffLine
	for _, l := range a {
		out = append(out, DiffLine{"-", l})
	}
	for _, l := range b {
		out = append(out, DiffLine{"+", l})
	}
	return out
}

// splitLines splits s into lines; "" has none.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
