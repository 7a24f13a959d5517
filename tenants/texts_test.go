package tenants

import (
	"testing"
	"time"
)

func TestHashText(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"ascii", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"utf-8 bytes, not code points", "Zustimmung ✓", "" /* checked against itself below */},
		{"a trailing newline changes it", "abc\n", "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb"},
	} {
		got := HashText(c.text)
		if len(got) != 64 {
			t.Errorf("%s: %q is not 64 hex digits", c.name, got)
		}
		if c.want != "" && got != c.want {
			t.Errorf("%s: HashText(%q) = %s, want %s", c.name, c.text, got, c.want)
		}
	}
	if HashText("Zustimmung ✓") == HashText("Zustimmung \u2714") {
		t.Error("two different texts hash the same")
	}
	if HashText("é") == HashText("e\u0301") {
		t.Error("the hash normalised the text: it must be of the exact bytes")
	}
}

func TestTextSets(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	v := func(id string, c ConsentName, lang string, i int) ConsentText {
		return ConsentText{ID: id, Consent: c, Language: lang, Text: id, Hash: HashText(id), PublishedAt: at.Add(time.Duration(i) * time.Hour)}
	}
	pp, ge, gp := ConsentPrimaryPurpose, ConsentGeneralContactEmail, ConsentGeneralContactPhone
	texts := []ConsentText{
		v("de1", pp, "de", 1), v("de2", ge, "de", 2), v("en1", pp, "en", 3), v("de3", pp, "de", 4), v("en2", gp, "en", 5),
	}
	ids := func(s TextSet) map[ConsentName]string {
		out := map[ConsentName]string{}
		for c, t := range s {
			out[c] = t.ID
		}
		return out
	}
	eq := func(a, b map[ConsentName]string) bool {
		if len(a) != len(b) {
			return false
		}
		for k, x := range a {
			if b[k] != x {
				return false
			}
		}
		return true
	}
	for _, c := range []struct {
		name    string
		version string
		want    map[ConsentName]string
		ok      bool
	}{
		{"the first version stands alone", "de1", map[ConsentName]string{pp: "de1"}, true},
		{"a later version carries the earlier ones of its language", "de2", map[ConsentName]string{pp: "de1", ge: "de2"}, true},
		{"another language: its own where it has one, else the latest of any", "en1", map[ConsentName]string{pp: "en1", ge: "de2"}, true},
		{"a newer version of one consent replaces it", "de3", map[ConsentName]string{pp: "de3", ge: "de2"}, true},
		{"never a version published later", "en2", map[ConsentName]string{pp: "en1", ge: "de2", gp: "en2"}, true},
		{"unknown id", "nope", nil, false},
	} {
		got, ok := SetOf(texts, c.version)
		if ok != c.ok || (ok && !eq(ids(got), c.want)) {
			t.Errorf("%s: SetOf(%s) = %v, %v; want %v, %v", c.name, c.version, ids(got), ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		name string
		lang string
		want map[ConsentName]string
	}{
		{"the form's language when a text has it", "de", map[ConsentName]string{pp: "de3", ge: "de2", gp: "en2"}},
		{"else the latest publication's language", "fr", map[ConsentName]string{pp: "en1", ge: "de2", gp: "en2"}},
	} {
		if got := ids(CurrentSet(texts, c.lang)); !eq(got, c.want) {
			t.Errorf("%s: CurrentSet(%s) = %v, want %v", c.name, c.lang, got, c.want)
		}
	}
	if got := CurrentSet(nil, "de"); len(got) != 0 {
		t.Errorf("a form without texts has the set %v", got)
	}
	cs := Consents{PrimaryPurpose: Consent{Status: StatusGranted}, GeneralContactEmail: Consent{Status: StatusNotGranted}, GeneralContactPhone: Consent{Status: StatusGranted}}
	set, _ := SetOf(texts, "de3")
	set.Stamp(&cs)
	if r := cs.PrimaryPurpose.Text; r == nil || r.Version != "de3" || r.Hash != HashText("de3") || r.Language != "de" {
		t.Errorf("granted primary purpose stamped %+v", r)
	}
	if cs.GeneralContactEmail.Text != nil {
		t.Error("a consent not granted was stamped")
	}
	if cs.GeneralContactPhone.Text != nil {
		t.Error("a consent without a text in the set was stamped")
	}
}
