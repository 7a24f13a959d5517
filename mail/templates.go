package mail

import (
	"errors"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Kind is what a mail is for.
type Kind string

// The kinds of mail a form sends.
const (
	// Confirmation asks to confirm a consent (double opt-in).
	Confirmation Kind = "confirmation"
	// Reminder asks again when a confirmation was not acted on.
	Reminder Kind = "reminder"
	// ThankYou thanks the person for a submission.
	ThankYou Kind = "thank_you"
)

// The placeholders a template may use, written {{name}}.
const (
	PlaceholderConfirmURL     = "confirm_url"
	PlaceholderPreferencesURL = "preferences_url"
	PlaceholderFormName       = "form_name"
	PlaceholderOrgName        = "org_name"
	PlaceholderFirstName      = "first_name"
)

var knownPlaceholders = []string{
	PlaceholderConfirmURL, PlaceholderPreferencesURL, PlaceholderFormName,
	PlaceholderOrgName, PlaceholderFirstName,
}

// Template is a mail before its placeholders are filled in. Kind decides
// the rules Validate applies (a confirmation must carry its link).
//
// A placeholder whose value is empty also takes the one space before it
// away, so "Hello {{first_name}}," reads "Hello," without a name.
type Template struct {
	Kind    Kind
	Subject string
	Text    string
	HTML    string // optional
}

// Values are the placeholders' values, by name (without braces).
type Values map[string]string

// MaxSubjectLen is the longest subject, in characters, a template may have.
const MaxSubjectLen = 200

var placeholderRE = regexp.MustCompile(`\{\{([^{}]*)\}\}`)

// Validate checks t and returns all problems, joined (errors.As finds each
// *FieldError), or nil: a known kind; a subject of 1 to MaxSubjectLen
// characters on one line; a text; only known placeholders; and for a
// confirmation {{confirm_url}} in the text and, if there is one, the HTML.
func (t Template) Validate() error {
	var errs []error
	add := func(field, msg string) { errs = append(errs, &FieldError{Field: field, Msg: msg}) }

	switch t.Kind {
	case Confirmation, Reminder, ThankYou:
	default:
		add("kind", `must be one of "confirmation", "reminder", "thank_you"`)
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(t.Subject)); n < 1 || n > MaxSubjectLen {
		add("subject", fmt.Sprintf("must be 1 to %d characters", MaxSubjectLen))
	}
	if strings.ContainsAny(t.Subject, "\r\n") {
		add("subject", "must be one line")
	}
	if strings.TrimSpace(t.Text) == "" {
		add("text", "must be set")
	}
	for _, f := range []struct{ field, s string }{{"subject", t.Subject}, {"text", t.Text}, {"html", t.HTML}} {
		for _, m := range placeholderRE.FindAllStringSubmatch(f.s, -1) {
			if !isKnownPlaceholder(m[1]) {
				add(f.field, unknownPlaceholderMsg(m[1]))
			}
		}
	}
	if t.Kind == Confirmation {
		const need = "{{" + PlaceholderConfirmURL + "}}"
		if !strings.Contains(t.Text, need) {
			add("text", "a confirmation must contain "+need)
		}
		if t.HTML != "" && !strings.Contains(t.HTML, need) {
			add("html", "a confirmation must contain "+need)
		}
	}
	return errors.Join(errs...)
}

func isKnownPlaceholder(name string) bool {
	for _, k := range knownPlaceholders {
		if name == k {
			return true
		}
	}
	return false
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9_ .-]{1,40}$`)

// unknownPlaceholderMsg quotes the unknown name only when it looks like a
// name: a template is tenant-written, and whatever sits between braces
// could be an address.
func unknownPlaceholderMsg(name string) string {
	known := "{{" + strings.Join(knownPlaceholders, "}}, {{") + "}}"
	if plainName.MatchString(name) {
		return fmt.Sprintf("unknown placeholder {{%s}}; known: %s", name, known)
	}
	return "unknown placeholder; known: " + known
}

// Render validates t and fills in its placeholders: as given in Text,
// with line breaks turned to spaces in Subject, HTML-escaped in HTML. A
// missing value is empty, except that a confirmation needs its
// confirm_url; URL values must be http or https, since the HTML links to
// them. The result is a finished mail, no longer a template.
func (t Template) Render(v Values) (Template, error) {
	if err := t.Validate(); err != nil {
		return Template{}, err
	}
	var errs []error
	for _, name := range []string{PlaceholderConfirmURL, PlaceholderPreferencesURL} {
		if s := v[name]; s != "" && !isWebURL(s) {
			errs = append(errs, &FieldError{Field: name, Msg: "must be an http or https URL"})
		}
	}
	if t.Kind == Confirmation && v[PlaceholderConfirmURL] == "" {
		errs = append(errs, &FieldError{Field: PlaceholderConfirmURL, Msg: "must be set for a confirmation"})
	}
	if err := errors.Join(errs...); err != nil {
		return Template{}, err
	}

	oneLine := strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ")
	subject := replacer(v, oneLine.Replace)
	text := replacer(v, func(s string) string { return s })
	htm := replacer(v, html.EscapeString)
	return Template{
		Kind:    t.Kind,
		Subject: strings.TrimSpace(subject.Replace(t.Subject)),
		Text:    text.Replace(t.Text),
		HTML:    htm.Replace(t.HTML),
	}, nil
}

// replacer maps every known placeholder to its value passed through esc;
// for an empty value, " {{name}}" is listed first so that the space goes
// too (strings.Replacer tries its pairs in order at each position).
func replacer(v Values, esc func(string) string) *strings.Replacer {
	var pairs []string
	for _, name := range knownPlaceholders {
		ph := "{{" + name + "}}"
		val := esc(v[name])
		if val == "" {
			pairs = append(pairs, " "+ph, "")
		}
		pairs = append(pairs, ph, val)
	}
	return strings.NewReplacer(pairs...)
}

func isWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// Default returns the built-in template of kind in lang ("en", "de",
// also "de-AT" and the like), English for any other language; a zero
// Template for an unknown kind.
func Default(kind Kind, lang string) Template {
	byLang, ok := defaults[kind]
	if !ok {
		return Template{}
	}
	if t, ok := byLang[primaryLang(lang)]; ok {
		return t
	}
	return byLang["en"]
}

func primaryLang(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, "-_"); i >= 0 {
		lang = lang[:i]
	}
	return lang
}

// defaultText holds the built-in wording; the HTML is derived from it so
// that the two parts cannot drift apart.
var defaultText = map[Kind]map[string][2]string{ // kind → lang → subject, text
	Confirmation: {
		"en": {
			"Please confirm: {{form_name}}",
			`Hello {{first_name}},

Thank you for filling in the form "{{form_name}}" for {{org_name}}. Please confirm it was you by opening this link:

{{confirm_url}}

If it wasn't you, just ignore this email and nothing will happen.

You can change or withdraw your consent at any time:
{{preferences_url}}

{{org_name}}
`,
		},
		"de": {
			"Bitte bestätigen Sie: {{form_name}}",
			`Hallo {{first_name}},

danke, dass Sie das Formular „{{form_name}}“ von {{org_name}} ausgefüllt haben. Bitte bestätigen Sie mit diesem Link, dass Sie es waren:

{{confirm_url}}

Falls nicht, ignorieren Sie diese E-Mail einfach – dann geschieht nichts.

Ihre Einwilligung können Sie jederzeit ändern oder widerrufen:
{{preferences_url}}

{{org_name}}
`,
		},
	},
	Reminder: {
		"en": {
			"Reminder: please confirm {{form_name}}",
			`Hello {{first_name}},

You recently filled in the form "{{form_name}}" for {{org_name}}, but it is not confirmed yet. One click is all it takes:

{{confirm_url}}

If you have changed your mind, just ignore this email.

You can change or withdraw your consent at any time:
{{preferences_url}}

{{org_name}}
`,
		},
		"de": {
			"Erinnerung: Bitte bestätigen Sie {{form_name}}",
			`Hallo {{first_name}},

Sie haben vor Kurzem das Formular „{{form_name}}“ von {{org_name}} ausgefüllt, es aber noch nicht bestätigt. Ein Klick genügt:

{{confirm_url}}

Falls Sie es sich anders überlegt haben, ignorieren Sie diese E-Mail einfach.

Ihre Einwilligung können Sie jederzeit ändern oder widerrufen:
{{preferences_url}}

{{org_name}}
`,
		},
	},
	ThankYou: {
		"en": {
			"Thank you for taking part: {{form_name}}",
			`Hello {{first_name}},

Thank you. {{org_name}} has received what you sent for "{{form_name}}".

You can change or withdraw your consent at any time:
{{preferences_url}}

{{org_name}}
`,
		},
		"de": {
			"Vielen Dank für Ihre Teilnahme: {{form_name}}",
			`Hallo {{first_name}},

vielen Dank. {{org_name}} hat Ihre Angaben zu „{{form_name}}“ erhalten.

Sie können Ihre Einwilligung jederzeit ändern oder widerrufen:
{{preferences_url}}

{{org_name}}
`,
		},
	},
}

var defaults = buildDefaults()

func buildDefaults() map[Kind]map[string]Template {
	out := make(map[Kind]map[string]Template, len(defaultText))
	for kind, byLang := range defaultText {
		out[kind] = make(map[string]Template, len(byLang))
		for lang, st := range byLang {
			out[kind][lang] = Template{Kind: kind, Subject: st[0], Text: st[1], HTML: textToHTML(lang, st[0], st[1])}
		}
	}
	return out
}

// textToHTML makes the HTML part of a default: one paragraph per block of
// the text, a link for each line that is only a URL placeholder.
// Placeholders pass html.EscapeString unchanged, and Render escapes the
// values that replace them.
func textToHTML(lang, subject, text string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"" + lang + "\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + html.EscapeString(subject) + "</title>\n</head>\n")
	b.WriteString("<body style=\"font-family: sans-serif; line-height: 1.5; max-width: 36em;\">\n")
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(para, "\n")
		for i, line := range lines {
			line = strings.TrimSpace(line)
			if line == "{{"+PlaceholderConfirmURL+"}}" || line == "{{"+PlaceholderPreferencesURL+"}}" {
				lines[i] = `<a href="` + line + `">` + line + `</a>`
			} else {
				lines[i] = html.EscapeString(line)
			}
		}
		b.WriteString("<p>" + strings.Join(lines, "<br>\n") + "</p>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}
