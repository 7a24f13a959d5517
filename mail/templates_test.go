package mail

import (
	"errors"
	"strings"
	"testing"
)

var kinds = []Kind{Confirmation, Reminder, ThankYou}

func fullValues() Values {
	return Values{
		PlaceholderConfirmURL:     "https://forms.example/c/xyz",
		PlaceholderPreferencesURL: "https://forms.example/p/abc",
		PlaceholderFormName:       "Newsletter",
		PlaceholderOrgName:        "Beispiel GmbH",
		PlaceholderFirstName:      "Ada",
	}
}

func TestDefaultsValidateAndRender(t *testing.T) {
	greeting := map[string][2]string{"en": {"Hello Ada,", "Hello,"}, "de": {"Hallo Ada,", "Hallo,"}}
	for _, kind := range kinds {
		for lang, greet := range greeting {
			tmpl := Default(kind, lang)
			if tmpl.Kind != kind {
				t.Fatalf("Default(%s, %s).Kind = %q", kind, lang, tmpl.Kind)
			}
			if err := tmpl.Validate(); err != nil {
				t.Errorf("Default(%s, %s) does not validate: %v", kind, lang, err)
			}
			for _, name := range []string{"{{" + PlaceholderPreferencesURL + "}}", "{{" + PlaceholderFormName + "}}", "{{" + PlaceholderOrgName + "}}"} {
				if !strings.Contains(tmpl.Text, name) || !strings.Contains(tmpl.HTML, name) {
					t.Errorf("Default(%s, %s) lacks %s", kind, lang, name)
				}
			}

			v := fullValues()
			out, err := tmpl.Render(v)
			if err != nil {
				t.Fatalf("Render(%s, %s): %v", kind, lang, err)
			}
			if !strings.HasPrefix(out.Text, greet[0]+"\n") || !strings.Contains(out.HTML, "<p>"+greet[0]+"</p>") {
				t.Errorf("%s/%s with a name: text %q", kind, lang, out.Text)
			}
			if !strings.Contains(out.Subject, "Newsletter") || strings.Contains(out.Subject+out.Text+out.HTML, "{{") {
				t.Errorf("%s/%s: placeholders left: %+v", kind, lang, out)
			}
			if !strings.Contains(out.HTML, `<a href="https://forms.example/p/abc">https://forms.example/p/abc</a>`) {
				t.Errorf("%s/%s: no preferences link in %q", kind, lang, out.HTML)
			}
			if kind != ThankYou && !strings.Contains(out.HTML, `<a href="https://forms.example/c/xyz">`) {
				t.Errorf("%s/%s: no confirm link in %q", kind, lang, out.HTML)
			}

			v[PlaceholderFirstName] = ""
			out, err = tmpl.Render(v)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.Text, greet[1]+"\n") || !strings.Contains(out.HTML, "<p>"+greet[1]+"</p>") {
				t.Errorf("%s/%s without a name: text %q", kind, lang, out.Text)
			}
		}
	}
}

func TestDefaultLanguages(t *testing.T) {
	en, de := Default(Confirmation, "en"), Default(Confirmation, "de")
	if en.Subject == de.Subject {
		t.Fatal("English and German defaults are the same")
	}
	if !strings.Contains(de.Subject, "bestätigen") {
		t.Errorf("German subject %q", de.Subject)
	}
	for lang, want := range map[string]Template{"": en, "fr": en, "EN-gb": en, "de-AT": de, "DE_ch": de, " de ": de} {
		if got := Default(Confirmation, lang); got != want {
			t.Errorf("Default(confirmation, %q) = %q, want %q", lang, got.Subject, want.Subject)
		}
	}
	if got := Default("newsletter", "en"); got != (Template{}) {
		t.Errorf("unknown kind: %+v", got)
	}
	if !strings.Contains(de.HTML, `<html lang="de">`) {
		t.Error("German HTML is not marked German")
	}
}

func TestRenderEscaping(t *testing.T) {
	tmpl := Template{
		Kind:    ThankYou,
		Subject: "Danke von {{org_name}}",
		Text:    "{{form_name}} at {{org_name}}: {{preferences_url}}",
		HTML:    `<p>{{form_name}}</p><a href="{{preferences_url}}">x</a>`,
	}
	out, err := tmpl.Render(Values{
		PlaceholderFormName:       `Tom & Jerry <b>"3"</b>`,
		PlaceholderOrgName:        "Acme\r\nBcc: x",
		PlaceholderPreferencesURL: "https://forms.example/p?a=1&b=2",
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "Tom & Jerry <b>\"3\"</b> at Acme\r\nBcc: x: https://forms.example/p?a=1&b=2" {
		t.Errorf("Text %q", out.Text)
	}
	if out.HTML != `<p>Tom &amp; Jerry &lt;b&gt;&#34;3&#34;&lt;/b&gt;</p><a href="https://forms.example/p?a=1&amp;b=2">x</a>` {
		t.Errorf("HTML %q", out.HTML)
	}
	if out.Subject != "Danke von Acme Bcc: x" {
		t.Errorf("Subject %q", out.Subject)
	}

	// A value is not searched for placeholders itself.
	out, err = Template{Kind: ThankYou, Subject: "x", Text: "{{first_name}} {{org_name}}"}.Render(Values{
		PlaceholderFirstName: "{{org_name}}", PlaceholderOrgName: "Acme",
	})
	if err != nil || out.Text != "{{org_name}} Acme" {
		t.Errorf("Render = %q, %v", out.Text, err)
	}
}

func TestRenderEmptyValues(t *testing.T) {
	tmpl := Template{Kind: Reminder, Subject: "Hi {{first_name}}", Text: "Hi {{first_name}}, welcome.\n{{first_name}}\n"}
	out, err := tmpl.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Subject != "Hi" || out.Text != "Hi, welcome.\n\n" {
		t.Errorf("Render(nil) = %q / %q", out.Subject, out.Text)
	}
}

func TestRenderErrors(t *testing.T) {
	conf := Default(Confirmation, "en")
	cases := map[string]struct {
		tmpl  Template
		v     Values
		field string
	}{
		"no confirm url":        {conf, Values{PlaceholderPreferencesURL: "https://x.example/p"}, PlaceholderConfirmURL},
		"javascript url":        {conf, Values{PlaceholderConfirmURL: "javascript:alert(1)"}, PlaceholderConfirmURL},
		"relative prefs url":    {conf, Values{PlaceholderConfirmURL: "https://x.example/c", PlaceholderPreferencesURL: "/p/abc"}, PlaceholderPreferencesURL},
		"invalid template":      {Template{Kind: ThankYou, Subject: "x", Text: "{{nope}}"}, nil, "text"},
		"template without kind": {Template{Subject: "x", Text: "y"}, nil, "kind"},
	}
	for name, tc := range cases {
		_, err := tc.tmpl.Render(tc.v)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: Render = %v, want a FieldError for %q", name, err, tc.field)
		}
	}
}

func TestTemplateValidate(t *testing.T) {
	ok := Template{Kind: ThankYou, Subject: "Danke", Text: "Danke, {{first_name}}."}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, field, msg string
		change           func(*Template)
	}{
		{"no kind", "kind", "must be one of", func(tm *Template) { tm.Kind = "" }},
		{"unknown kind", "kind", "must be one of", func(tm *Template) { tm.Kind = "newsletter" }},
		{"empty subject", "subject", "1 to 200", func(tm *Template) { tm.Subject = "  " }},
		{"long subject", "subject", "1 to 200", func(tm *Template) { tm.Subject = strings.Repeat("ä", 201) }},
		{"two-line subject", "subject", "one line", func(tm *Template) { tm.Subject = "a\nb" }},
		{"no text", "text", "must be set", func(tm *Template) { tm.Text = "\n" }},
		{"unknown in text", "text", "unknown placeholder {{firstname}}", func(tm *Template) { tm.Text = "Hi {{firstname}}" }},
		{"spaced placeholder", "text", "unknown placeholder {{ first_name }}", func(tm *Template) { tm.Text = "Hi {{ first_name }}" }},
		{"unknown in subject", "subject", "unknown placeholder {{date}}", func(tm *Template) { tm.Subject = "{{date}}" }},
		{"unknown in html", "html", "unknown placeholder", func(tm *Template) { tm.HTML = "<p>{{x}}</p>" }},
		{"confirmation without link", "text", "{{confirm_url}}", func(tm *Template) { tm.Kind = Confirmation }},
		{"confirmation html without link", "html", "{{confirm_url}}", func(tm *Template) {
			tm.Kind, tm.Text, tm.HTML = Confirmation, "{{confirm_url}}", "<p>hi</p>"
		}},
	}
	for _, tc := range cases {
		tm := ok
		tc.change(&tm)
		err := tm.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("%s: Validate() = %v, want %s: …%s…", tc.name, err, tc.field, tc.msg)
		}
	}
	if s := strings.Repeat("ä", 200); (Template{Kind: ThankYou, Subject: s, Text: "x"}).Validate() != nil {
		t.Error("a subject of 200 characters (400 bytes) is refused")
	}

	// An address between braces is not repeated in the error.
	err := Template{Kind: ThankYou, Subject: "x", Text: "{{ada@example.org}}"}.Validate()
	if err == nil || strings.Contains(err.Error(), "@") {
		t.Errorf("Validate() = %v", err)
	}
}
