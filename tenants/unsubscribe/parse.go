// Package unsubscribe turns the bodies posted to POST /api/v1/{provider}/unsubscribe into
// unsubscribe events (docs/API.md §8.1): the generic {email, phone} object, or each
// provider's own webhook exactly as the provider sends it. It is pure parsing over bytes; the
// caller authenticates the request, normalises the identifiers and revokes consent.
package unsubscribe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
)

// Event is one unsubscribe reported by a provider or a client: raw identifiers as sent (the caller normalises them).
type Event struct {
	Email   string // "" if none
	Phone   string // "" if none
	EventID string // provider's event id for de-duplication (SendGrid sg_event_id, Mailjet/Postmark ids...), "" if none; unique only together with Email and Phone (one Postmark message may have several recipients)
}

// Result is what a request body carries.
type Result struct {
	Events  []Event // unsubscribes to apply (may be empty: the body held only other event types)
	Ignored int     // events recognised and ignored because they are not unsubscribes
	Generic bool    // the body was the generic {email, phone} JSON object
	// PhoneOnly marks an SMS provider's body: an opt-out in it revokes general contact by
	// phone alone.
	PhoneOnly bool
	// Messages are the inbound messages of an SMS provider's own body (Events stays empty):
	// which of them are opt-outs depends on the tenant's keywords (Keywords.Classify).
	Messages []Message
}

var (
	// ErrUnknownProvider reports a provider path segment that is not one of Providers().
	ErrUnknownProvider = errors.New("unknown unsubscribe provider")
	// ErrMalformed reports a body that is neither the generic object nor the provider's own webhook.
	ErrMalformed = errors.New("malformed unsubscribe body")
	// ErrNoIdentifier reports a generic body with neither a non-empty email nor phone.
	ErrNoIdentifier = errors.New("at least one of email or phone must be provided")
	// ErrTooManyEvents reports a batch of more than MaxEvents events (wrapped with ErrMalformed).
	ErrTooManyEvents = errors.New("too many events in one request")
)

// MaxEvents bounds the events of one body: the server already caps the body at 1 MiB, this
// caps the work (and the consent writes) one request can cause. Providers that batch send
// a few hundred at most.
const MaxEvents = 1000

const maxEvents = MaxEvents

// discriminators are the keys by which a provider event announces itself. An object holding
// any of them is never read as the generic body, whichever provider path it was posted to: a
// misrouted "delivered" event carrying an "email" must not revoke consent.
var discriminators = [...]string{"event", "RecordType", "type"}

// Providers lists the provider path names: brevo, mailchimp, sendgrid, mailjet, postmark.
func Providers() []string {
	return []string{"brevo", "mailchimp", "sendgrid", "mailjet", "postmark"}
}

// Parse turns a request body to a provider's unsubscribe path into events.
func Parse(provider, contentType string, body []byte) (Result, error) {
	parse := adapterFor(provider)
	if parse == nil {
		return Result{}, ErrUnknownProvider
	}
	return parse(contentType, body)
}

func adapterFor(provider string) func(contentType string, body []byte) (Result, error) {
	switch provider {
	case "brevo":
		return parseBrevo
	case "mailchimp":
		return parseMailchimp
	case "sendgrid":
		return parseSendGrid
	case "mailjet":
		return parseMailjet
	case "postmark":
		return parsePostmark
	case "twilio":
		return parseTwilio
	case "telnyx":
		return parseTelnyx
	case "vonage":
		return parseVonage
	}
	return nil
}

// eventFunc reads one provider event: the event, whether it is an unsubscribe, or an error
// wrapping ErrMalformed.
type eventFunc func(f fields) (Event, bool, error)

// bodyKind is how a body is to be read.
type bodyKind int

const (
	kindJSON bodyKind = iota
	kindForm
)

// classify decides how to read body from its declared media type. Without one, a body opening
// like JSON is JSON and anything else is taken as a form (only Mailchimp accepts forms).
func classify(contentType string, body []byte) (bodyKind, error) {
	b := trimBody(body)
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: empty body", ErrMalformed)
	}
	if strings.TrimSpace(contentType) == "" {
		if b[0] == '{' || b[0] == '[' {
			return kindJSON, nil
		}
		return kindForm, nil
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0, fmt.Errorf("%w: unreadable content type", ErrMalformed)
	}
	switch {
	case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
		return kindJSON, nil
	case mediaType == "application/x-www-form-urlencoded":
		return kindForm, nil
	}
	return 0, fmt.Errorf("%w: unsupported content type %q", ErrMalformed, mediaType)
}

// parseJSONOnly is the whole adapter of a provider that only ever posts JSON.
func parseJSONOnly(contentType string, body []byte, read eventFunc) (Result, error) {
	kind, err := classify(contentType, body)
	if err != nil {
		return Result{}, err
	}
	if kind != kindJSON {
		return Result{}, fmt.Errorf("%w: body is not JSON", ErrMalformed)
	}
	return parseJSON(body, read)
}

// parseJSON reads a JSON body that is the generic object, one provider event, or an array of
// provider events (batches).
func parseJSON(body []byte, read eventFunc) (Result, error) {
	b := trimBody(body)
	if len(b) == 0 {
		return Result{}, fmt.Errorf("%w: empty body", ErrMalformed)
	}
	switch b[0] {
	case '{':
		f, err := decodeFields(b)
		if err != nil {
			return Result{}, err
		}
		if isGeneric(f) {
			return parseGeneric(f)
		}
		var c collector
		if err := c.add(read(f)); err != nil {
			return Result{}, err
		}
		return c.res, nil
	case '[':
		return parseArray(b, read)
	}
	return Result{}, fmt.Errorf("%w: body is neither a JSON object nor an array", ErrMalformed)
}

// parseArray streams a JSON array so that an oversized batch is refused before it is decoded.
func parseArray(b []byte, read eventFunc) (Result, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return Result{}, fmt.Errorf("%w: invalid JSON", ErrMalformed)
	}
	var c collector
	for i := 0; dec.More(); i++ {
		if i == maxEvents {
			return Result{}, fmt.Errorf("%w: %w: more than %d", ErrMalformed, ErrTooManyEvents, maxEvents)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Result{}, fmt.Errorf("%w: invalid JSON", ErrMalformed)
		}
		f, err := decodeFields(raw)
		if err != nil {
			return Result{}, fmt.Errorf("event %d: %w", i, err)
		}
		if err := c.add(read(f)); err != nil {
			return Result{}, fmt.Errorf("event %d: %w", i, err)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return Result{}, fmt.Errorf("%w: invalid JSON", ErrMalformed)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Result{}, fmt.Errorf("%w: data after the JSON array", ErrMalformed)
	}
	return c.res, nil
}

// isGeneric reports whether an object is the generic body rather than a provider event.
func isGeneric(f fields) bool {
	for _, k := range discriminators {
		if f.has(k) {
			return false
		}
	}
	return true
}

// parseGeneric reads the generic {email, phone} object.
func parseGeneric(f fields) (Result, error) {
	email, err := f.str("email")
	if err != nil {
		return Result{}, err
	}
	phone, err := f.str("phone")
	if err != nil {
		return Result{}, err
	}
	ev := Event{Email: strings.TrimSpace(email), Phone: strings.TrimSpace(phone)}
	if ev.Email == "" && ev.Phone == "" {
		return Result{}, ErrNoIdentifier
	}
	return Result{Events: []Event{ev}, Generic: true}, nil
}

// collector gathers the events of one body, dropping repeats of an identified event (SendGrid
// may deliver the same sg_event_id twice in a batch).
type collector struct {
	res  Result
	seen map[Event]bool
}

func (c *collector) add(ev Event, unsubscribe bool, err error) error {
	if err != nil {
		return err
	}
	if !unsubscribe {
		c.res.Ignored++
		return nil
	}
	ev.Email = strings.TrimSpace(ev.Email)
	ev.Phone = strings.TrimSpace(ev.Phone)
	ev.EventID = strings.TrimSpace(ev.EventID)
	if ev.Email == "" && ev.Phone == "" {
		// Dropping it silently would lose an opt-out; refusing it makes the provider retry and
		// the failure visible in our logs.
		return fmt.Errorf("%w: unsubscribe event without an e-mail address", ErrMalformed)
	}
	if ev.EventID != "" {
		if c.seen[ev] {
			return nil
		}
		if c.seen == nil {
			c.seen = make(map[Event]bool)
		}
		c.seen[ev] = true
	}
	c.res.Events = append(c.res.Events, ev)
	return nil
}

// requireName reads a provider event's discriminating field, which must be a non-empty string.
func requireName(f fields, key string) (string, error) {
	name, err := f.str(key)
	if err != nil {
		return "", err
	}
	if name = strings.TrimSpace(name); name == "" {
		return "", fmt.Errorf("%w: %q is missing", ErrMalformed, key)
	}
	return name, nil
}

// trimBody drops a UTF-8 byte order mark and the white space around a body.
func trimBody(body []byte) []byte {
	b := bytes.TrimSpace(body)
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	return bytes.TrimSpace(b)
}
