package web

import "strings"

// Msgf is the message id in lang with its one placeholder {} replaced by arg.
func Msgf(lang, id, arg string) string { return strings.Replace(Msg(lang, id), "{}", arg, 1) }

func init() {
	addMessages("en", map[string]string{
		"channel.email":         "e-mail",
		"channel.phone":         "phone",
		"link.and":              " and ",
		"link.invalid":          "This link is not valid. Please check that you opened the whole link from the message you received.",
		"confirm.title":         "Confirm your consent",
		"confirm.question":      "Please confirm that you agree to be contacted by {}.",
		"confirm.button":        "Yes, I confirm",
		"confirm.ignore":        "If you did not ask for this, ignore this page: nothing happens without your confirmation.",
		"confirm.done":          "Thank you: your consent to be contacted by {} is confirmed.",
		"confirm.withdraw_hint": "You can withdraw it at any time with the link in every message we send you.",
		"confirm.used":          "This link has already been used: your confirmation was recorded earlier.",
		"confirm.lapsed":        "This link has expired. Please sign up again to receive a new one.",
		"withdraw.title":        "Withdraw your consent",
		"withdraw.current":      "You have agreed to be contacted by:",
		"withdraw.button":       "Withdraw my consent",
		"withdraw.done":         "Your consent is withdrawn: you will no longer be contacted by {}.",
		"withdraw.nothing":      "There is nothing left to withdraw: you have no consent to be contacted with us.",
		"prefs.title":           "Your consents",
		"prefs.current":         "These are the consents you have given us. You can withdraw each on its own:",
		"prefs.channel":         "Contact by {}",
		"prefs.form":            "Your part in “{}”",
		"prefs.withdraw":        "Withdraw",
		"prefs.all":             "Withdraw everything",
		"prefs.done":            "Done: that consent is withdrawn. Nothing else has changed.",
		"prefs.done_all":        "Done: every consent you had given us is withdrawn.",
		"prefs.nothing":         "You hold no consent with us: there is nothing to withdraw.",
		"prefs.error":           "Please choose one of the consents listed below.",
	})
	addMessages("de", map[string]string{
		"channel.email":         "E-Mail",
		"channel.phone":         "Telefon",
		"link.and":              " und ",
		"link.invalid":          "Dieser Link ist nicht gültig. Bitte prüfen Sie, ob Sie den ganzen Link aus Ihrer Nachricht geöffnet haben.",
		"confirm.title":         "Einwilligung bestätigen",
		"confirm.question":      "Bitte bestätigen Sie, dass Sie per {} kontaktiert werden möchten.",
		"confirm.button":        "Ja, ich bestätige",
		"confirm.ignore":        "Wenn Sie das nicht angefordert haben, ignorieren Sie diese Seite: Ohne Ihre Bestätigung geschieht nichts.",
		"confirm.done":          "Vielen Dank: Ihre Einwilligung, per {} kontaktiert zu werden, ist bestätigt.",
		"confirm.withdraw_hint": "Sie können sie jederzeit mit dem Link in jeder unserer Nachrichten widerrufen.",
		"confirm.used":          "Dieser Link wurde bereits verwendet: Ihre Bestätigung liegt schon vor.",
		"confirm.lapsed":        "Dieser Link ist abgelaufen. Bitte melden Sie sich erneut an, um einen neuen zu erhalten.",
		"withdraw.title":        "Einwilligung widerrufen",
		"withdraw.current":      "Sie haben eingewilligt, kontaktiert zu werden per:",
		"withdraw.button":       "Einwilligung widerrufen",
		"withdraw.done":         "Ihre Einwilligung ist widerrufen: Sie werden nicht mehr per {} kontaktiert.",
		"withdraw.nothing":      "Es gibt nichts mehr zu widerrufen: Sie haben keine Einwilligung zur Kontaktaufnahme bei uns.",
		"prefs.title":           "Ihre Einwilligungen",
		"prefs.current":         "Diese Einwilligungen haben Sie uns gegeben. Sie können jede einzeln widerrufen:",
		"prefs.channel":         "Kontakt per {}",
		"prefs.form":            "Ihre Teilnahme an „{}“",
		"prefs.withdraw":        "Widerrufen",
		"prefs.all":             "Alles widerrufen",
		"prefs.done":            "Erledigt: Diese Einwilligung ist widerrufen. Sonst hat sich nichts geändert.",
		"prefs.done_all":        "Erledigt: Alle Einwilligungen, die Sie uns gegeben hatten, sind widerrufen.",
		"prefs.nothing":         "Sie haben uns keine Einwilligung gegeben: Es gibt nichts zu widerrufen.",
		"prefs.error":           "Bitte wählen Sie eine der unten aufgeführten Einwilligungen.",
	})
}
