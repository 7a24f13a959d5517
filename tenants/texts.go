package tenants

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// ConsentText is one published version of the notice a form shows beside one of its consents
// (docs/API.md §12). A version is never changed or deleted: it holds no personal data, so
// erasure leaves it, and a record's proof of what the person saw stays readable for as long
// as the record is kept. ID is the version id a submission names in consent_text_version.
type ConsentText struct {
	ID          string      `json:"id"`
	TenantID    string      `json:"tenantId"`
	FormID      string      `json:"formId"`
	Consent     ConsentName `json:"consent"`
	Language    string      `json:"language"`
	Text        string      `json:"text"`
	Hash        string      `json:"hash"`
	PublishedAt time.Time   `json:"publishedAt"`
}

// HashText is the hash of a notice: the lower-case hex SHA-256 of its exact UTF-8 bytes, so
// that anyone holding the text can check it against a record's proof.
func HashText(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// Ref is the proof a granted consent keeps of the version it was given under.
func (t ConsentText) Ref() *TextRef {
	return &TextRef{Version: t.ID, Hash: t.Hash, Language: t.Language}
}

// consentKeys are the consents as submission keys and the command line name them.
var consentKeys = map[ConsentName]string{
	ConsentPrimaryPurpose:      "primary_purpose",
	ConsentGeneralContactEmail: "general_contact_email",
	ConsentGeneralContactPhone: "general_contact_phone",
}

// ConsentKey is name as submission keys write it ("primary_purpose").
func ConsentKey(name ConsentName) string { return consentKeys[name] }

// ConsentByKey reads a consent named either way ("primary_purpose" or "primaryPurpose").
func ConsentByKey(s string) (ConsentName, bool) {
	for name, key := range consentKeys {
		if s == key || s == string(name) {
			return name, true
		}
	}
	return "", false
}

// TextRef names the notice version a consent was given under, with its hash and language.
type TextRef struct {
	Version  string `json:"version"`
	Hash     string `json:"hash"`
	Language string `json:"language"`
}

// TextStore reads a form's consent texts, in publication order (oldest first).
type TextStore interface {
	List(ctx context.Context, tenantID, formID string) ([]ConsentText, error)
}

// TextRepo keeps consent texts: Insert adds a version (ErrConflict for an id that exists),
// Get reads one by its version id within a tenant's form; there is no update and no delete.
type TextRepo interface {
	TextStore
	Insert(ctx context.Context, t ConsentText) error
	Get(ctx context.Context, tenantID, formID, id string) (ConsentText, error)
}

// TextSet is the notice of each consent of a form at one moment; a consent without a text is
// absent.
type TextSet map[ConsentName]ConsentText

// SetOf returns the set a version id stands for among a form's texts (in publication order):
// per consent, the latest version published at or before it in its language, else the latest
// in any language. ok is false when no text has that id.
func SetOf(texts []ConsentText, version string) (TextSet, bool) {
	for i, t := range texts {
		if t.ID == version {
			return setUpTo(texts[:i+1], t.Language), true
		}
	}
	return nil, false
}

// CurrentSet returns the set current now among a form's texts (in publication order), in
// language lang when any text has it, else in the language of the latest publication; empty
// when the form has no texts.
func CurrentSet(texts []ConsentText, lang string) TextSet {
	if len(texts) == 0 {
		return TextSet{}
	}
	use := texts[len(texts)-1].Language
	for _, t := range texts {
		if t.Language == lang {
			use = lang
			break
		}
	}
	return setUpTo(texts, use)
}

// setUpTo picks, per consent, the latest of texts in lang, else the latest in any language.
func setUpTo(texts []ConsentText, lang string) TextSet {
	out := TextSet{}
	inLang := map[ConsentName]bool{}
	for _, t := range texts {
		if t.Language == lang {
			out[t.Consent], inLang[t.Consent] = t, true
		} else if !inLang[t.Consent] {
			out[t.Consent] = t
		}
	}
	return out
}

// Stamp records in each consent the set gives a text for, and that is not not_granted, the
// version it was given under.
func (set TextSet) Stamp(c *Consents) {
	for name, con := range c.All() {
		if t, ok := set[name]; ok && con.Status != StatusNotGranted && con.Status != "" {
			con.Text = t.Ref()
		}
	}
}

// Version is the version id that names the set in consent_text_version: its latest
// publication ("" for an empty set). A page that shows the set sends it, so that the record
// names the texts the person saw even when a newer version is published before they post.
func (set TextSet) Version() string {
	var latest ConsentText
	for _, t := range set {
		if latest.ID == "" || t.PublishedAt.After(latest.PublishedAt) || (t.PublishedAt.Equal(latest.PublishedAt) && t.ID > latest.ID) {
			latest = t
		}
	}
	return latest.ID
}
