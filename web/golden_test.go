package web

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// hashedAsset matches hashed asset names, so that editing app.css does not break the snapshots.
var hashedAsset = regexp.MustCompile(`(/admin/static/[a-z.]+)\.[0-9a-f]{8}\.(css|js|svg)`)

// TestGolden compares a few pages with snapshots; run `go test ./web -run Golden -update`
// after an intended change and review the diff.
func TestGolden(t *testing.T) {
	pages := samplePages()
	for _, name := range []string{"login", "keys", "submission"} {
		t.Run(name, func(t *testing.T) {
			got := hashedAsset.ReplaceAllString(renderHTML(t, pages[name]), "$1.HASH.$2")
			got = strings.ReplaceAll(got, "><", ">\n<") + "\n" // one tag a line, for readable diffs
			path := filepath.Join("testdata", name+".golden.html")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the snapshot; run with -update and review the diff.\n%s", path, firstDiff(string(want), got))
			}
		})
	}
}

// firstDiff shows the first differing line.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return ""
}
