package web

import (
	"strings"
	"time"
)

// The hosted form page's words.
func init() {
	addMessages("en", map[string]string{
		"form.submit":             "Send",
		"form.required":           "required",
		"form.required.note":      "Fields marked * are required.",
		"form.consents":           "Your consent",
		"form.consent.primary":    "I agree that {org} uses the details I give here for the purpose of this form.",
		"form.consent.email":      "{org} may contact me by e-mail.",
		"form.consent.phone":      "{org} may contact me by phone.",
		"form.until":              "Valid until {date}. You can withdraw your consent at any time.",
		"form.errors.summary":     "The form was not sent. Please correct the fields marked below.",
		"form.err.required":       "Please fill in this field.",
		"form.err.email":          "Please enter a valid e-mail address, such as name@example.org.",
		"form.err.phone":          "Please enter a phone number with its country code, such as +49 30 1234567.",
		"form.err.invalid":        "Please check this entry.",
		"form.err.number":         "Please enter a number.",
		"form.err.primary":        "Please agree, so that we may use your details.",
		"form.err.challenge":      "The spam check failed. Please send the form again.",
		"form.err.too_many":       "The form holds too many e-mail addresses or phone numbers.",
		"form.thanks":             "Thank you. Your details have been received.",
		"form.thanks.pending":     "One more step: we have sent you a message with a link. Please check your inbox and confirm with that link; until then we will not contact you.",
		"form.err.noscript":       "This form needs JavaScript for its spam check. Please turn JavaScript on and send the form again.",
		"form.err.noscript_limit": "Too many forms were sent from your network without the spam check. Please turn JavaScript on, or try again later.",
		"form.checking":           "Checking that you are not a robot …",
		"form.honeypot":           "Leave this field empty",
		"form.choose":             "Choose …",
		"form.closed":             "This form is not open.",
		"form.field.email":        "E-mail address",
		"form.field.phone_number": "Phone number",
		"form.field.first_name":   "First name",
		"form.field.last_name":    "Last name",
	})
	addMessages("de", map[string]string{
		"form.submit":             "Absenden",
		"form.required":           "Pflichtfeld",
		"form.required.note":      "Mit * markierte Felder sind Pflichtfelder.",
		"form.consents":           "Ihre Einwilligung",
		"form.consent.primary":    "Ich bin einverstanden, dass {org} meine Angaben hier für den Zweck dieses Formulars verwendet.",
		"form.consent.email":      "{org} darf mich per E-Mail kontaktieren.",
		"form.consent.phone":      "{org} darf mich telefonisch kontaktieren.",
		"form.until":              "Gültig bis {date}. Sie können Ihre Einwilligung jederzeit widerrufen.",
		"form.errors.summary":     "Das Formular wurde nicht gesendet. Bitte korrigieren Sie die unten markierten Felder.",
		"form.err.required":       "Bitte füllen Sie dieses Feld aus.",
		"form.err.email":          "Bitte geben Sie eine gültige E-Mail-Adresse ein, z. B. name@example.org.",
		"form.err.phone":          "Bitte geben Sie eine Telefonnummer mit Landesvorwahl ein, z. B. +49 30 1234567.",
		"form.err.invalid":        "Bitte prüfen Sie diese Angabe.",
		"form.err.number":         "Bitte geben Sie eine Zahl ein.",
		"form.err.primary":        "Bitte stimmen Sie zu, damit wir Ihre Angaben verwenden dürfen.",
		"form.err.challenge":      "Die Spam-Prüfung ist fehlgeschlagen. Bitte senden Sie das Formular erneut.",
		"form.err.too_many":       "Das Formular enthält zu viele E-Mail-Adressen oder Telefonnummern.",
		"form.thanks":             "Vielen Dank. Ihre Angaben sind eingegangen.",
		"form.thanks.pending":     "Noch ein Schritt: Wir haben Ihnen eine Nachricht mit einem Link geschickt. Bitte sehen Sie in Ihrem Posteingang nach und bestätigen Sie mit diesem Link; bis dahin kontaktieren wir Sie nicht.",
		"form.err.noscript":       "Dieses Formular braucht JavaScript für seine Spam-Prüfung. Bitte schalten Sie JavaScript ein und senden Sie das Formular erneut.",
		"form.err.noscript_limit": "Aus Ihrem Netz wurden zu viele Formulare ohne Spam-Prüfung gesendet. Bitte schalten Sie JavaScript ein oder versuchen Sie es später erneut.",
		"form.checking":           "Prüfung, dass Sie kein Roboter sind …",
		"form.honeypot":           "Dieses Feld bitte leer lassen",
		"form.choose":             "Bitte wählen …",
		"form.closed":             "Dieses Formular ist nicht geöffnet.",
		"form.field.email":        "E-Mail-Adresse",
		"form.field.phone_number": "Telefonnummer",
		"form.field.first_name":   "Vorname",
		"form.field.last_name":    "Nachname",
	})
}

// MsgWith is Msg with each {key} replaced by its value.
func MsgWith(lang, id string, kv ...string) string {
	m := Msg(lang, id)
	for i := 0; i+1 < len(kv); i += 2 {
		m = strings.ReplaceAll(m, "{"+kv[i]+"}", kv[i+1])
	}
	return m
}

// LongDate writes a day as the page's language does: "26 November 2027", "26.11.2027".
func LongDate(lang string, t time.Time) string {
	if PageLang(lang) == "de" {
		return t.Format("2.1.2006")
	}
	return t.Format("2 January 2006")
}
