package api

import "github.com/gofiber/fiber/v2"

// The shape limits of a JSON body (docs/API.md §2): how deep objects and arrays may nest, and
// how many object keys and array elements a body may hold in all. They keep what a decoded
// body costs in memory near its size and refuse bodies that no reader could decode again.
const (
	MaxBodyDepth   = 32
	MaxBodyMembers = 1000
)

// checkShape scans a JSON text for its nesting depth and its number of members (object keys
// and array elements) without decoding it, and refuses one over either limit. Text that is not
// JSON passes: the decoder refuses it next.
func checkShape(body []byte) error {
	depth, members := 0, 0
	inString, escaped := false, false
	// array[d] tells whether the container at depth d is an array (its commas count elements).
	var array [MaxBodyDepth + 1]bool
	for _, b := range body {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > MaxBodyDepth {
				return &Error{Status: fiber.StatusBadRequest, Kind: "ValidationError", Code: "payload_too_deep",
					Message: "The request body nests objects and arrays deeper than 32 levels.",
					Details: map[string]any{"maxDepth": MaxBodyDepth}}
			}
			array[depth] = b == '['
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case ':':
			members++
		case ',':
			if array[depth] {
				members++
			}
		}
		if members > MaxBodyMembers {
			return &Error{Status: fiber.StatusBadRequest, Kind: "ValidationError", Code: "payload_too_many_keys",
				Message: "The request body holds more than 1000 object keys and array elements.",
				Details: map[string]any{"maxKeys": MaxBodyMembers}}
		}
	}
	return nil
}
