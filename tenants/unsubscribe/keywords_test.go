package unsubscribe

import (
	"slices"
	"testing"
)

func TestFoldKeyword(t *testing.T) {
	for in, want := range map[string]string{
		"STOP": "stop", " stop\n": "stop", "STOP.": "stop", "Stop!!": "stop", "stop ?": "stop", "ｓｔｏｐ": "stop",
		"Stop   all": "stop all", "STOP\tALL.": "stop all", "ARRÊT": "arrêt", "Straße": "strasse", "¿baja?": "¿baja",
		"": "", " . ": "", "stop.please": "stop.please",
	} {
		if got := FoldKeyword(in); got != want {
			t.Errorf("FoldKeyword(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLanguages(t *testing.T) {
	for _, tt := range []struct {
		country string
		forms   []string
		want    []string
	}{
		{"", nil, nil},
		{"DE", nil, []string{"de"}},
		{"at", nil, []string{"de"}},
		{"CH", []string{"de", "en"}, []string{"de", "fr", "it", "en"}},
		{"BE", nil, []string{"fr", "nl"}},
		{"GB", []string{"es-MX", "NL_be", ""}, []string{"es", "nl"}},
	} {
		if got := Languages(tt.country, tt.forms); !slices.Equal(got, tt.want) {
			t.Errorf("Languages(%q, %q) = %q, want %q", tt.country, tt.forms, got, tt.want)
		}
	}
}

// TestKeywordsClassify is the keyword rule: the industry keywords for every tenant, a
// language's words only for a tenant of that language, the tenant's own words, START and
// UNSTOP an opt-in, the provider's own STOP and START, anything else nothing.
func TestKeywordsClassify(t *testing.T) {
	none := NewKeywords(nil, nil)
	german := NewKeywords(Languages("DE", nil), nil)
	swiss := NewKeywords(Languages("CH", nil), nil)
	all := NewKeywords([]string{"de", "fr", "es", "nl", "it"}, nil)
	own := NewKeywords(nil, []string{" Nicht Mehr! ", "start", "ALTO"})
	for _, tt := range []struct {
		name     string
		k        Keywords
		text     string
		provider string
		want     Keyword
	}{
		{"STOP", none, "STOP", "", KeywordOptOut},
		{"stop all", none, "stop all", "", KeywordOptOut},
		{"STOP ALL spaced", none, "  STOP   ALL ", "", KeywordOptOut},
		{"STOPALL", none, "STOPALL", "", KeywordOptOut},
		{"STOP.", none, "STOP.", "", KeywordOptOut},
		{"Stop!", none, "Stop!", "", KeywordOptOut},
		{"fullwidth", none, "ＳＴＯＰ", "", KeywordOptOut},
		{"UNSUBSCRIBE", none, "Unsubscribe", "", KeywordOptOut},
		{"CANCEL", none, "cancel", "", KeywordOptOut},
		{"END", none, "End", "", KeywordOptOut},
		{"QUIT", none, "QUIT", "", KeywordOptOut},
		{"REVOKE", none, "revoke", "", KeywordOptOut},
		{"OPTOUT", none, "OptOut", "", KeywordOptOut},
		{"Stopp without German", none, "Stopp", "", KeywordNone},
		{"Stopp German", german, "Stopp", "", KeywordOptOut},
		{"ABMELDEN German", german, "ABMELDEN", "", KeywordOptOut},
		{"abmelden. German", german, "abmelden.", "", KeywordOptOut},
		{"ABMELDEN without German", none, "ABMELDEN", "", KeywordNone},
		{"BAJA German", german, "BAJA", "", KeywordNone},
		{"ARRÊT Swiss", swiss, "ARRÊT", "", KeywordOptOut},
		{"BASTA Swiss", swiss, "Basta!", "", KeywordOptOut},
		{"ARRET", all, "ARRET", "", KeywordOptOut},
		{"DESINSCRIRE", all, "DESINSCRIRE", "", KeywordOptOut},
		{"désinscrire", all, "désinscrire", "", KeywordOptOut},
		{"BAJA", all, "baja", "", KeywordOptOut},
		{"PARAR", all, "PARAR", "", KeywordOptOut},
		{"AFMELDEN", all, "Afmelden", "", KeywordOptOut},
		{"tenant word", own, "nicht mehr", "", KeywordOptOut},
		{"tenant word folded", own, "NICHT  MEHR.", "", KeywordOptOut},
		{"tenant word ALTO", own, "alto", "", KeywordOptOut},
		{"tenant word elsewhere", none, "alto", "", KeywordNone},
		{"START added as a stop word stays opt-in", own, "START", "", KeywordOptIn},
		{"START", none, "START", "", KeywordOptIn},
		{"start.", none, "start.", "", KeywordOptIn},
		{"UNSTOP", none, "Unstop", "", KeywordOptIn},
		{"Twilio OptOutType=STOP", none, "please remove me", "STOP", KeywordOptOut},
		{"Twilio OptOutType=START", none, "yes", "START", KeywordOptIn},
		{"Twilio OptOutType=HELP", none, "HELP", "HELP", KeywordNone},
		{"HELP", none, "HELP", "", KeywordNone},
		{"stop please", none, "stop please", "", KeywordNone},
		{"reply", none, "Hello, see you at the rally!", "", KeywordNone},
		{"OPT OUT", none, "OPT OUT", "", KeywordNone},
		{"empty", none, "", "", KeywordNone},
		{"punctuation only", none, "!!!", "", KeywordNone},
	} {
		if got := tt.k.Classify(tt.text, tt.provider); got != tt.want {
			t.Errorf("%s: Classify(%q, %q) = %v, want %v", tt.name, tt.text, tt.provider, got, tt.want)
		}
	}
}

func TestCheckAddedWord(t *testing.T) {
	for in, want := range map[string]bool{"Alto": true, " nicht mehr! ": true, "": false, "...": false, "START": false, "unstop": false,
		"a very long phrase that is well beyond forty characters": false} {
		if _, ok := CheckAddedWord(in); ok != want {
			t.Errorf("CheckAddedWord(%q) ok = %v, want %v", in, ok, want)
		}
	}
}
