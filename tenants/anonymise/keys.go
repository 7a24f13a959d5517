package anonymise

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// personalWords name contact, address and identity data, in the languages campaigns use
// (English, German, French, Spanish, Italian, Dutch, Polish; written without diacritics, as
// splitWords folds them: "prénom" is "prenom", "straße" is "strasse"). A key is personal when
// one of its words, or the whole key squashed, is one of these, or is built only from these
// and modifierWords ("phonenumber", "dateofbirth", "telefonnummer"). "country" is deliberately
// absent: a country alone does not single out a person, and campaigns report by it.
var personalWords = wordSet(
	"email", "mail", "phone", "mobile", "cell", "cellphone", "tel", "telephone", "fax",
	"name", "firstname", "lastname", "surname", "forename", "fullname", "prefix", "given", "family",
	"street", "address", "addr", "house", "housenumber", "apartment", "apt",
	"city", "town", "zip", "zipcode", "postcode", "postal", "postalcode",
	"state", "county", "province",
	"birth", "birthday", "birthdate", "dob", "born",
	"ip", "ipaddress", "passport", "ssn", "taxid", "nationalid", "iban", "signature",
	"latitude", "longitude", "lat", "lng", "lon", "geo", "gps", "coordinates", "geolocation",
	// Free text typed by canvassers and callers about the person (decided personal).
	"note", "notes",
	// German.
	"vorname", "nachname", "familienname", "geburtsname", "rufname", "anrede", "strasse", "hausnummer",
	"anschrift", "adresse", "plz", "postleitzahl", "wohnort", "ort", "stadt", "telefon", "handy",
	"mobil", "geburt", "geburts", "geburtstag", "geburtsdatum", "geboren", "ausweis", "steuerid",
	"unterschrift", "notiz", "notizen",
	// French.
	"prenom", "nom", "rue", "ville", "courriel", "portable", "naissance",
	// Spanish.
	"nombre", "apellido", "apellidos", "calle", "direccion", "ciudad", "telefono", "movil", "celular",
	"correo", "nacimiento", "domicilio", "dni", "nif",
	// Italian.
	"cognome", "indirizzo", "citta", "cellulare", "nascita", "codicefiscale",
	// Dutch.
	"voornaam", "achternaam", "naam", "tussenvoegsel", "straat", "straatnaam", "huisnummer",
	"woonplaats", "stad", "telefoon", "mobiel", "geboorte", "geboortedatum", "adres",
	// Polish.
	"imie", "nazwisko", "ulica", "miasto", "miejscowosc", "pocztowy", "komorka", "urodzenia",
	"urodzin", "pesel",
)

// modifierWords are not personal on their own; they only let compound words such as
// "phonenumber" or "homeaddress" be recognised without substring matching, which would
// find "ip" in "shipping" and "city" in "electricity".
var modifierWords = wordSet(
	"number", "num", "nr", "no", "code", "line", "date", "day", "of", "place",
	"first", "last", "given", "family", "middle", "maiden", "full", "nick", "user",
	"home", "work", "private", "business", "office", "primary", "secondary", "alt",
	"other", "contact", "personal", "billing", "delivery", "shipping", "main", "second",
	// The same in the other languages.
	"nummer", "numero", "numer", "datum", "fecha", "data", "de", "di", "du", "van", "der", "des",
	"codigo", "codice", "kod", "postale", "zweit", "privat", "kontakt", "contacto",
	"contatto", "persoonlijk", "fiscale",
)

// longestWord bounds the dictionary look-ups of splitsPersonal.
const longestWord = 16

func wordSet(words ...string) map[string]bool {
	set := make(map[string]bool, len(words))
	for _, w := range words {
		if len(w) > longestWord {
			panic("anonymise: word longer than longestWord: " + w)
		}
		set[w] = true
	}
	return set
}

// PersonalKey reports whether a field name is named like contact or address data.
// The name is split into lower-case words at separators (anything not a letter or
// digit), camelCase and letter/digit boundaries; "consentIPAddress" gives consent, ip,
// address. Digit-only words are ignored.
func PersonalKey(name string) bool {
	words := splitWords(name)
	for _, w := range words {
		if personalWord(w) {
			return true
		}
	}
	return len(words) > 1 && personalWord(strings.Join(words, ""))
}

// personalWord reports whether w, or w as a plural ("phones", "addresses", "cities"),
// splits into dictionary words with a personal one among them.
func personalWord(w string) bool {
	if splitsPersonal(w) {
		return true
	}
	if stem, ok := strings.CutSuffix(w, "ies"); ok && splitsPersonal(stem+"y") {
		return true
	}
	if stem, ok := strings.CutSuffix(w, "es"); ok && splitsPersonal(stem) {
		return true
	}
	stem, ok := strings.CutSuffix(w, "s")
	return ok && splitsPersonal(stem)
}

// splitWords breaks a key into lower-case letter words, dropping digit runs and folding
// diacritics ("Prénom" gives prenom, "Straße" strasse, "imię" imie).
func splitWords(name string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	runes := foldDiacritics(name)
	for i, r := range runes {
		if !unicode.IsLetter(r) {
			// Digits and separators both end a word; digits carry no meaning here.
			flush()
			continue
		}
		if i > 0 && unicode.IsUpper(r) {
			prev := runes[i-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur.WriteRune(unicode.ToLower(r))
	}
	flush()
	return words
}

// splitsPersonal reports whether w is a sequence of dictionary words of which at least
// one is personal ("dateofbirth" = date+of+birth). Whole-word matching only: a word that
// does not split completely ("shipping" as ship+ping) is not personal.
func splitsPersonal(w string) bool {
	if personalWords[w] {
		return true
	}
	// reach[i] is 0 when w[:i] cannot be split, 1 when it splits into modifiers only,
	// 2 when it splits with at least one personal word.
	reach := make([]uint8, len(w)+1)
	reach[0] = 1
	for i := 1; i <= len(w); i++ {
		for j := max(0, i-longestWord); j < i; j++ {
			if reach[j] == 0 {
				continue
			}
			switch part := w[j:i]; {
			case personalWords[part]:
				reach[i] = 2
			case modifierWords[part]:
				reach[i] = max(reach[i], reach[j])
			}
		}
	}
	return reach[len(w)] == 2
}

// foldDiacritics returns name's runes without combining marks, ß as ss and ł as l.
func foldDiacritics(name string) []rune {
	var out []rune
	for _, r := range norm.NFD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == 'ß':
			out = append(out, 's', 's')
		case r == 'ł':
			out = append(out, 'l')
		case r == 'Ł':
			out = append(out, 'L')
		default:
			out = append(out, r)
		}
	}
	return out
}
