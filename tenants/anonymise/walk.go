package anonymise

import (
	"reflect"
	"strings"
	"time"
)

// plain returns a deep copy of v made only of the JSON-like shapes this package inspects:
// map[string]any, []any, string, numbers, bools, time.Time and nil. A store's named
// document and array types (map or slice kinds, and ordered documents as slices of
// {Key, Value} structs) are converted. A value it cannot look into — a byte slice, any
// other struct — reports false, so that Strip drops what it cannot vet.
func plain(v any) (any, bool) {
	switch x := v.(type) {
	case nil, string, bool, float64, float32, int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64, time.Time:
		return x, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if p, ok := plain(e); ok {
				out[k] = p
			}
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i], _ = plain(e)
		}
		return out, true
	}
	return plainReflect(reflect.ValueOf(v))
}

func plainReflect(rv reflect.Value) (any, bool) {
	switch rv.Kind() {
	case reflect.String:
		return rv.String(), true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return rv.Interface(), true
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, true
		}
		return plain(rv.Elem().Interface())
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			if p, ok := plain(it.Value().Interface()); ok {
				out[it.Key().String()] = p
			}
		}
		return out, true
	case reflect.Slice, reflect.Array:
		elem := rv.Type().Elem()
		if elem.Kind() == reflect.Uint8 {
			return nil, false
		}
		if isKeyValue(elem) {
			out := make(map[string]any, rv.Len())
			for i := range rv.Len() {
				if p, ok := plain(rv.Index(i).Field(1).Interface()); ok {
					out[rv.Index(i).Field(0).String()] = p
				}
			}
			return out, true
		}
		out := make([]any, rv.Len())
		for i := range rv.Len() {
			out[i], _ = plain(rv.Index(i).Interface())
		}
		return out, true
	}
	return nil, false
}

// isKeyValue reports whether t is an element of an ordered document: struct{Key string; Value any}.
func isKeyValue(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.NumField() == 2 &&
		t.Field(0).Name == "Key" && t.Field(0).Type.Kind() == reflect.String &&
		t.Field(1).Name == "Value" && t.Field(1).Type.Kind() == reflect.Interface
}

// stripFields returns a plain copy of m without the declared fields, the personal keys and
// the personal string values at every depth. A nil map stays nil.
func stripFields(m map[string]any, declared map[string]bool, country string) map[string]any {
	if m == nil {
		return nil
	}
	p, _ := plain(m)
	out := p.(map[string]any)
	scrubMap(out, "", declared, country)
	return out
}

// scrubMap removes, in place, every declared field (its dotted path from the top, any case:
// "contact.given" reaches {"contact":{"given":…}}, also through arrays), every personal key
// (with whatever it holds) and every personal string value; emptied maps stay as empty maps. A
// key that is itself an e-mail address, phone number or IP address ({"jane@example.org":
// true}) goes too.
func scrubMap(m map[string]any, path string, declared map[string]bool, country string) {
	for k, v := range m {
		at := strings.ToLower(k)
		if path != "" {
			at = path + "." + at
		}
		if declared[at] || PersonalKey(k) || personalValue(k, country) {
			delete(m, k)
			continue
		}
		if kept, ok := scrub(v, at, declared, country); ok {
			m[k] = kept
		} else {
			delete(m, k)
		}
	}
}

// scrub cleans a plain value at path in place and reports whether it may be kept. In arrays
// a removed element becomes nil, so that positions and lengths survive.
func scrub(v any, path string, declared map[string]bool, country string) (any, bool) {
	switch x := v.(type) {
	case string:
		return x, !personalValue(x, country)
	case map[string]any:
		scrubMap(x, path, declared, country)
	case []any:
		for i, e := range x {
			if kept, ok := scrub(e, path, declared, country); ok {
				x[i] = kept
			} else {
				x[i] = nil
			}
		}
	}
	return v, true
}

// visitStrings calls fn for every string in a plain value, at any depth.
func visitStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case map[string]any:
		for _, e := range x {
			visitStrings(e, fn)
		}
	case []any:
		for _, e := range x {
			visitStrings(e, fn)
		}
	}
}
