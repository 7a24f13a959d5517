package web

import "strings"

// The message catalogue of the pages the person sees (confirmation, withdrawal, hosted form):
// one table per language, keyed by message id. Every page file adds its messages with
// addMessages from an init function beside it, so that the whole catalogue is one lookup and
// a missing translation falls back to English.
var catalogue = map[string]map[string]string{}

// languages lists the languages the person's pages are written in; others fall back to English.
var languages = []string{"en", "de"}

func addMessages(lang string, msgs map[string]string) {
	if catalogue[lang] == nil {
		catalogue[lang] = map[string]string{}
	}
	for k, v := range msgs {
		catalogue[lang][k] = v
	}
}

// PageLang is the language a page is written in for a form's language setting: the setting
// when the catalogue has it, else English.
func PageLang(lang string) string {
	lang = strings.ToLower(lang)
	if _, ok := catalogue[lang]; ok {
		return lang
	}
	return "en"
}

// Msg is the message id in lang, or in English when lang lacks it, or the id itself when the
// catalogue has neither (a test keeps every id in both languages).
func Msg(lang, id string) string {
	if m, ok := catalogue[PageLang(lang)][id]; ok {
		return m
	}
	if m, ok := catalogue["en"][id]; ok {
		return m
	}
	return id
}

func init() {
	addMessages("en", map[string]string{
		"page.footer":  "This page sets no cookies and loads nothing from anywhere else.",
		"page.privacy": "Privacy notice",
		"page.contact": "Data protection contact:",
	})
	addMessages("de", map[string]string{
		"page.footer":  "Diese Seite setzt keine Cookies und lädt nichts von anderswo.",
		"page.privacy": "Datenschutzhinweise",
		"page.contact": "Kontakt für den Datenschutz:",
	})
}
