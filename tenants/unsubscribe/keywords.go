package unsubscribe

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Keyword is what an inbound SMS asks for, by the keyword rule (docs/API.md §11).
type Keyword int

const (
	// KeywordNone is any other text: a reply, HELP, "stop please". It changes nothing.
	KeywordNone Keyword = iota
	// KeywordOptOut withdraws general contact by phone.
	KeywordOptOut
	// KeywordOptIn is START or UNSTOP: it grants nothing (a grant needs a submission with its
	// proof) and is only audited.
	KeywordOptIn
)

// industryOptOut are the opt-out keywords of every tenant (CTIA, carriers, Twilio's
// defaults), written as FoldKeyword leaves them.
var industryOptOut = []string{"stop", "stop all", "stopall", "unsubscribe", "cancel", "end", "quit", "revoke", "optout"}

// optIn are the keywords that ask to hear again.
var optIn = []string{"start", "unstop"}

// languageOptOut are the opt-out words of a language (ISO 639-1), besides the industry ones.
var languageOptOut = map[string][]string{
	"de": {"stopp", "abmelden"},
	"fr": {"arret", "arrêt", "desinscrire", "désinscrire"},
	"es": {"baja", "parar"},
	"nl": {"afmelden"},
	"it": {"basta"},
}

// countryLanguages are the languages of a country (ISO 3166 alpha-2) whose opt-out words a
// tenant of that default country understands. A country not listed adds none (English is
// the industry keywords').
var countryLanguages = map[string][]string{
	"DE": {"de"}, "AT": {"de"}, "LI": {"de"},
	"CH": {"de", "fr", "it"},
	"FR": {"fr"}, "MC": {"fr"},
	"BE": {"fr", "nl"},
	"LU": {"fr", "de"},
	"ES": {"es"}, "MX": {"es"}, "AR": {"es"}, "CO": {"es"}, "CL": {"es"}, "PE": {"es"},
	"NL": {"nl"},
	"IT": {"it"}, "SM": {"it"},
}

var folder = cases.Fold()

// FoldKeyword is an SMS text as the keyword rule compares it: NFKC-normalised, trimmed,
// case-folded, stripped of trailing punctuation, its inner white space one space each.
// " STOP. " and "ｓｔｏｐ!" are both "stop"; "Stop   all" is "stop all".
func FoldKeyword(text string) string {
	s := folder.String(norm.NFKC.String(text))
	s = strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	return strings.Join(strings.Fields(s), " ")
}

// Languages are the languages of a tenant for the keyword rule: those of its default country
// and those of its forms (ISO 639-1; a region suffix such as "de-AT" is dropped), without
// repeats, in that order.
func Languages(country string, formLanguages []string) []string {
	var out []string
	add := func(lang string) {
		lang, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(lang)), "-")
		lang, _, _ = strings.Cut(lang, "_")
		if lang != "" && !slices.Contains(out, lang) {
			out = append(out, lang)
		}
	}
	for _, l := range countryLanguages[strings.ToUpper(strings.TrimSpace(country))] {
		add(l)
	}
	for _, l := range formLanguages {
		add(l)
	}
	return out
}

// Keywords is one tenant's keyword rule: the industry opt-out keywords, those of its
// languages and the words it added.
type Keywords struct{ optOut map[string]bool }

// NewKeywords makes the rule of a tenant with languages (Languages) and its own added words.
func NewKeywords(languages, added []string) Keywords {
	k := Keywords{optOut: map[string]bool{}}
	for _, w := range industryOptOut {
		k.optOut[w] = true
	}
	for _, l := range languages {
		for _, w := range languageOptOut[l] {
			k.optOut[FoldKeyword(w)] = true
		}
	}
	for _, w := range added {
		if f := FoldKeyword(w); f != "" && !slices.Contains(optIn, f) {
			k.optOut[f] = true
		}
	}
	return k
}

// Classify decides what text asks for. providerKeyword is the provider's own reading of it
// (Twilio's OptOutType: STOP, START, HELP; "" none): its STOP is an opt-out and its START an
// opt-in whatever the text.
func (k Keywords) Classify(text, providerKeyword string) Keyword {
	switch strings.ToUpper(strings.TrimSpace(providerKeyword)) {
	case "STOP":
		return KeywordOptOut
	case "START":
		return KeywordOptIn
	}
	f := FoldKeyword(text)
	switch {
	case f == "":
		return KeywordNone
	case k.optOut[f]:
		return KeywordOptOut
	case slices.Contains(optIn, f):
		return KeywordOptIn
	}
	return KeywordNone
}

// IsOptOut reports whether text is an opt-out for a tenant with no languages or words of
// its own: one of the industry keywords.
func IsOptOut(text string) bool {
	return NewKeywords(nil, nil).Classify(text, "") == KeywordOptOut
}

// CheckAddedWord folds a word a tenant adds to its opt-out words and says whether it can be
// one: not empty once folded, at most MaxAddedWordLength characters, not an opt-in keyword.
func CheckAddedWord(word string) (string, bool) {
	f := FoldKeyword(word)
	return f, f != "" && len([]rune(f)) <= MaxAddedWordLength && !slices.Contains(optIn, f)
}

// MaxAddedWords and MaxAddedWordLength bound a tenant's own opt-out words.
const (
	MaxAddedWords      = 50
	MaxAddedWordLength = 40
)
