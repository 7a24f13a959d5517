package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeListsEveryCommand: the README's command table names every command help lists, so
// that a newcomer reading it misses none (rows may join alternatives: "tenant suspend\|activate").
func TestReadmeListsEveryCommand(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `consentforms ([^`]*)`").FindAllStringSubmatch(string(b), -1) {
		words := strings.Fields(strings.ReplaceAll(m[1], `\|`, "|"))
		if len(words) == 0 {
			continue
		}
		first := strings.Trim(words[0], "[]")
		listed[first] = true
		if len(words) > 1 && !strings.HasPrefix(words[1], "-") && !strings.HasPrefix(words[1], "[") {
			for _, alt := range strings.Split(words[1], "|") {
				listed[first+" "+alt] = true
			}
		}
	}
	for _, c := range commands() {
		if !listed[c.name] {
			t.Errorf("README.md's command table lacks %q", c.name)
		}
	}
}
