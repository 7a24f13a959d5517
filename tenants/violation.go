package tenants

import "strings"

// Violation is one reason an input was refused: the field it concerns (a JSON path such as
// "contact.email", or a form input's name), a stable machine code (docs/API.md §4 lists them) and
// a sentence for a person. It is the one shape every validation in the product reports in; the
// API writes it into error bodies, the admin UI shows Message beside the input named Field, and
// the CLI prints it.
type Violation struct {
	Field   string
	Code    string
	Message string
}

// Violations is a list of refusals that is also an error, for validations that run inside
// operations returning error.
type Violations []Violation

func (vs Violations) Error() string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Field + ": " + v.Message
	}
	return "invalid input: " + strings.Join(parts, "; ")
}
