package web

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
}

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
