package web

import "time"

// FormTextsPath is a form's consent texts page: GET shows the editor and the versions, POST
// previews or publishes.
func FormTextsPath(formID string) string { return FormPath(formID) + "/texts" }

// TextItem is one published consent text version as listed.
type TextItem struct {
	Version     string
	Consent     string // API name (primaryPurpose, …)
	Language    string
	Hash        string
	PublishedAt time.Time
}

// TextInput is the publishing form's input: Consent by its API name, Language ISO 639-1, Text
// exactly as typed.
type TextInput struct {
	Consent  string
	Language string
	Text     string
}

// TextPage publishes a new version of one consent text of a form (FormTextsPath). With Preview
// set it shows the text as the person sees it and its diff to Previous, the latest version of
// that consent and language (nil: this is the first), and asks to publish.
type TextPage struct {
	Layout   Layout
	FormID   string
	Input    TextInput
	Errors   FieldErrors // keys: consent, lang, text
	Preview  bool
	Previous *TextItem
	Diff     []DiffLine
	Versions []TextItem // newest first
}

// NoticeView is the exact consent text a consent was given under, on the record page.
type NoticeView struct {
	Version     string
	Language    string
	Hash        string
	Text        string
	PublishedAt time.Time
}

// shortHash is the first 12 hex digits of a hash, for tables; the whole is its title.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

func diffClass(op string) string { return "diff-" + diffName(op) }

func diffName(op string) string {
	switch op {
	case "+":
		return "added"
	case "-":
		return "removed"
	}
	return "same"
}
