package web

// HostedForm is the hosted form page of a form (GET and POST /f/{tenant}/{form}).
type HostedForm struct {
	Layout PersonLayout
	// Action is the page's own URL, where the form posts; ChallengeURL is where its script
	// fetches the spam challenge.
	Action, ChallengeURL string
	// SubmissionID makes a repeated post of the same page one submission.
	SubmissionID string
	// TextVersion names the set of consent texts the page shows ("" none): the record names
	// what the person saw.
	TextVersion string
	Fields      []HostedField
	Consents    []HostedConsent
	// Summary, when set, is the error summary announced above the form.
	Summary string
	// Done shows the thanks instead of the form; Pending, that a confirmation awaits the person.
	Done, Pending bool
	// Honeypot is the trap field's name.
	Honeypot string
}

// HostedField is one input of the hosted form.
type HostedField struct {
	Name, Label, Help string
	// Type is the input: text, email, tel, number, date, textarea, select, checkbox.
	Type     string
	Required bool
	Options  []string
	Value    string
	Checked  bool
	Error    string
	// Autocomplete is the browser's autofill hint, e.g. email, given-name.
	Autocomplete string
}

// HostedConsent is one consent checkbox with its text beside it.
type HostedConsent struct {
	Name, Text string
	// Until is the consent's end, as the page says it ("until 26 November 2027").
	Until    string
	Required bool
	Checked  bool
	Error    string
}

// fieldID is the element id of a hosted form's input.
func hostedID(name string) string { return "f-" + fieldID(name) }

// describedBy lists the help and error ids an input refers to.
func hostedDescribedBy(name, help, err string) string {
	out := ""
	if help != "" {
		out = hostedID(name) + "-help"
	}
	if err != "" {
		if out != "" {
			out += " "
		}
		out += hostedID(name) + "-error"
	}
	return out
}
