package web

import "testing"

// TestCatalogueComplete: every message is written in every language of the person's pages.
func TestCatalogueComplete(t *testing.T) {
	for _, lang := range languages {
		for id := range catalogue["en"] {
			if _, ok := catalogue[lang][id]; !ok {
				t.Errorf("%s lacks %q", lang, id)
			}
		}
		for id := range catalogue[lang] {
			if _, ok := catalogue["en"][id]; !ok {
				t.Errorf("%s has %q, English does not", lang, id)
			}
		}
	}
}
