package anonymise

import "testing"

func TestPersonalKey(t *testing.T) {
	personal := []string{
		"email", "e-mail", "E_Mail", "eMail", "emailAddress", "email_address", "contact_email", "mail",
		"phone", "phone_number", "phoneNumber", "PhoneNumber", "phonenumber", "homePhone", "mobile",
		"mobileNumber", "tel", "telNr", "telephone", "fax", "cell",
		"name", "first_name", "firstName", "FIRST_NAME", "firstname", "lastname", "last-name",
		"surname", "forename", "full name", "fullname", "name_prefix", "namePrefix", "prefix",
		"middleName", "username", "nickname",
		"street", "streetAddress", "street_address", "address", "address_line_1", "addressLine2",
		"address2", "addr", "house", "house_number", "houseNumber", "housenumber", "apartment",
		"city", "town", "zip", "ZIP", "zip_code", "zipCode", "ZIPCode", "zipcode", "postcode",
		"post_code", "postCode", "postal", "postal_code", "postalCode", "state", "county", "province",
		"birth", "birthday", "birth_date", "birthdate", "date_of_birth", "dateOfBirth", "DOB", "D.O.B.",
		"ip", "IP", "ipAddress", "IPAddress", "ip_address", "consent_ip_address", "consentIPAddress",
		"passport", "passport_no", "SSN", "iban", "IBAN", "signature", "tax_id", "national_id",
		"notes", "note", "caller_notes", "latitude", "lng", "geo_location",
		"phones", "emails", "email_addresses", "addresses", "cities", "counties", "names", "phoneNumbers", "ips",
		"given", "family", "givenName", "family_name", "born", "born_on",
		// German, French, Spanish, Italian, Dutch, Polish.
		"vorname", "Nachname", "strasse", "Straße", "plz", "PLZ", "wohnort", "telefon", "Telefonnummer",
		"geburtsdatum", "Geburtstag", "Hausnummer", "Postleitzahl", "handynummer",
		"prénom", "Prenom", "nom", "nom_de_famille", "rue", "ville", "code_postal", "date_de_naissance", "courriel",
		"nombre", "apellidos", "calle", "dirección", "ciudad", "teléfono", "correo_electronico", "fecha_de_nacimiento",
		"cognome", "indirizzo", "città", "cellulare", "data_di_nascita", "codice_fiscale",
		"voornaam", "achternaam", "straatnaam", "huisnummer", "woonplaats", "telefoonnummer", "geboortedatum",
		"imię", "nazwisko", "ulica", "miasto", "kod_pocztowy", "data_urodzenia", "PESEL", "miejscowość",
	}
	for _, k := range personal {
		if !PersonalKey(k) {
			t.Errorf("PersonalKey(%q) = false, want true", k)
		}
	}
	ordinary := []string{
		"", "interest", "topic", "newsletter_frequency", "campaign_id", "caller_id", "canvasser_id",
		"document_ref", "digitised_by", "outcome", "status", "scheduled_at", "called_at",
		"visited_at", "source", "consent_source", "consent_timestamp", "utm_campaign", "amount",
		"shipping", "shipping_method", "type", "granted", "deadline", "country", "country_code",
		"form_id", "submission_id", "volunteer", "size", "statement", "electricity", "membership",
		"relationship", "hotel", "zipper", "tip", "filename", "hostname", "mailing", "platform",
		"capacity", "notebook", "telemetry", "intelligence", "language", "event_date", "count",
		"number", "code", "id", "123", "status", "hips", "tips", "counts",
		"topic", "topics", "interests", "thema", "sujet", "tema", "onderwerp", "temat", "none", "done",
		"update", "order", "sort_order", "sport", "report", "nominal", "destination", "vandal",
	}
	for _, k := range ordinary {
		if PersonalKey(k) {
			t.Errorf("PersonalKey(%q) = true, want false", k)
		}
	}
}

func TestSplitWords(t *testing.T) {
	cases := map[string]string{
		"consentIPAddress": "consent ip address",
		"ZIPCode":          "zip code",
		"address_line_1":   "address line",
		"street2":          "street",
		"E-Mail":           "e mail",
		"first name":       "first name",
		"D.O.B.":           "d o b",
		"Straße":           "strasse",
		"Prénom":           "prenom",
		"imię_nazwisko":    "imie nazwisko",
	}
	for in, want := range cases {
		got := ""
		for i, w := range splitWords(in) {
			if i > 0 {
				got += " "
			}
			got += w
		}
		if got != want {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}
