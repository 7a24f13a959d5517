package unsubscribe

import (
	"encoding/json"
	"fmt"
)

// fields is one JSON object, its values left raw. Keys are matched exactly ("campaign name",
// "RecordType"), unlike encoding/json's case-insensitive struct decoding, and values we do not
// read never fail the parse (Postmark's 64-bit IDs, Mailjet's numeric-or-string ids).
type fields map[string]json.RawMessage

// decodeFields decodes a JSON object; any other JSON value, or invalid JSON, is malformed.
func decodeFields(raw []byte) (fields, error) {
	raw = trimBody(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%w: event is not a JSON object", ErrMalformed)
	}
	var f fields
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%w: invalid JSON", ErrMalformed)
	}
	return f, nil
}

// has reports whether key is present, whatever its value.
func (f fields) has(key string) bool {
	_, ok := f[key]
	return ok
}

// str reads a string value: "" when absent or null, malformed when of another type.
func (f fields) str(key string) (string, error) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		return "", nil
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%w: %q is not a string", ErrMalformed, key)
	}
	return s, nil
}

// id reads an identifier sent as a string or a number (its digits kept exactly, since provider
// ids exceed float64 precision): "" when absent or null, malformed when of another type.
func (f fields) id(key string) (string, error) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		return "", nil
	}
	if len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		return string(raw), nil
	}
	return f.str(key)
}

// boolean reads a boolean value and whether it was present; null counts as absent.
func (f fields) boolean(key string) (value, present bool, err error) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		return false, false, nil
	}
	switch string(raw) {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, fmt.Errorf("%w: %q is not a boolean", ErrMalformed, key)
}

// object reads a nested object: empty when absent or null, malformed when of another type.
func (f fields) object(key string) (fields, error) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		return fields{}, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%w: %q is not an object", ErrMalformed, key)
	}
	return decodeFields(raw)
}

func isNull(raw json.RawMessage) bool {
	return string(raw) == "null"
}

// objects reads an array of objects: none when absent or null, malformed when of another type.
func (f fields) objects(key string) ([]fields, error) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		return []fields{}, nil
	}
	var list []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return nil, fmt.Errorf("%w: %q is not an array", ErrMalformed, key)
	}
	out := make([]fields, len(list))
	for i, item := range list {
		var err error
		if out[i], err = decodeFields(item); err != nil {
			return nil, err
		}
	}
	return out, nil
}
