package web

import "time"

// The states a confirmation or withdrawal page shows (LinkView.State).
const (
	LinkOpen    = "open"
	LinkDone    = "done"
	LinkUsed    = "used"
	LinkLapsed  = "lapsed"
	LinkInvalid = "invalid"
	LinkNothing = "nothing"
)

// LinkView is the model of the confirmation page (/c/) and the withdrawal page (/w/).
type LinkView struct {
	Layout PersonLayout
	// State is one of the Link* states.
	State string
	// Channel is the general-contact channel a confirmation is for ("email", "phone");
	// Channels those a withdrawal shows or withdrew.
	Channel  string
	Channels []string
	// Action is where the page's one button posts: the page's own path.
	Action string
	// Forms are the forms whose primary purpose a preference page lists (id, name); Choices
	// where its buttons post (the /p/ path); All whether "withdraw everything" was just done.
	Forms   []PreferenceForm
	Choices string
	All     bool
	// Error is a refused choice's message ("" none).
	Error string
	// DataRequests: the preference page offers "send me a copy" and "erase my data";
	// Requests are the person's requests in words, Filed whether one was filed just now.
	DataRequests bool
	Requests     []PersonRequest
	Filed        bool
}

// PersonRequest is one of the person's data-subject requests as their page says it.
type PersonRequest struct{ Kind, Status, Text string }

// RequestLine says a request in the page's language: what was asked, when, and when done.
func RequestLine(lang, kind, status string, filed time.Time, done *time.Time) PersonRequest {
	d := ""
	if done != nil {
		d = LongDate(lang, *done)
	}
	return PersonRequest{Kind: kind, Status: status, Text: MsgWith(lang, "prefs."+kind+"."+status, "filed", LongDate(lang, filed), "done", d)}
}

// PreferenceForm is a form on the preference page: its id (the choice posted) and its name.
type PreferenceForm struct{ ID, Name string }

// Lang is the page's language.
func (v LinkView) Lang() string { return v.Layout.Lang }

// channelNames are the localised names of channels, joined for a sentence.
func channelNames(lang string, channels []string) string {
	out := ""
	for i, ch := range channels {
		if i > 0 {
			out += Msg(lang, "link.and")
		}
		out += Msg(lang, "channel."+ch)
	}
	return out
}
