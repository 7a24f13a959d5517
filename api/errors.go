package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"strconv"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// Error is a client-facing error rendered as the single-error body of docs/API.md §2.
type Error struct {
	Status  int            `json:"-"`
	Kind    string         `json:"error"`
	Message string         `json:"message"`
	Code    string         `json:"code,omitempty"`
	Details map[string]any `json:"details,omitempty"`
	// RetryAfter, when set, also goes out as the Retry-After header.
	RetryAfter int `json:"-"`
}

func (e *Error) Error() string { return e.Kind + ": " + e.Message }

func validation(message, field string) *Error {
	e := &Error{Status: fiber.StatusBadRequest, Kind: "ValidationError", Message: message}
	if field != "" {
		e.Details = map[string]any{"field": field}
	}
	return e
}

func unauthorized(message string) *Error {
	return &Error{Status: fiber.StatusUnauthorized, Kind: "Unauthorized", Message: message}
}

func forbidden(message string) *Error {
	return &Error{Status: fiber.StatusForbidden, Kind: "Forbidden", Message: message}
}

func notFound(message string) *Error {
	return &Error{Status: fiber.StatusNotFound, Kind: "NotFound", Message: message}
}

// unavailableRetry is the Retry-After, in seconds, while the database is unreachable.
const unavailableRetry = 5

// errorHandler is the one place errors become responses. Internals go to the log with the
// request id, never into the body.
func (s *server) errorHandler(c *fiber.Ctx, err error) error {
	var r *refusedRecord
	if errors.As(err, &r) {
		return c.Status(fiber.StatusBadRequest).JSON(r.body())
	}
	var e *Error
	var fe *fiber.Error
	switch {
	case errors.As(err, &e):
	case errors.As(err, &fe):
		e = fromFiber(fe)
	case errors.Is(err, tenants.ErrUnavailable):
		ops.CountStoreError(s.observer(), err)
		s.log.Error("database unavailable", "requestId", requestID(c), "route", routeOf(c), "err", err)
		retry := retryAfter(err)
		e = &Error{Status: fiber.StatusServiceUnavailable, Kind: "ServiceUnavailable",
			Message: "The service is temporarily unavailable; retry later.",
			Details: map[string]any{"retryAfter": retry}, RetryAfter: retry}
	default:
		ops.CountStoreError(s.observer(), err)
		s.log.Error("request failed", "requestId", requestID(c), "route", routeOf(c), "err", err)
		return c.Status(fiber.StatusInternalServerError).JSON(fiber.Map{
			"error": "InternalError", "message": "An internal error occurred.", "requestId": requestID(c)})
	}
	if e.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(e.RetryAfter))
	}
	return c.Status(e.Status).JSON(e)
}

// retryAfter is the Retry-After, in whole seconds (at least 1), of an unavailable store: when
// the store knows when a repeat can succeed (an erasure claim's lease), that, else
// unavailableRetry.
func retryAfter(err error) int {
	var re *tenants.RetryError
	if errors.As(err, &re) && re.After > 0 {
		return max(1, int(math.Ceil(re.After.Seconds())))
	}
	return unavailableRetry
}

func fromFiber(fe *fiber.Error) *Error {
	switch fe.Code {
	case fiber.StatusNotFound:
		return notFound("No such endpoint.")
	case fiber.StatusMethodNotAllowed:
		// docs/API.md §2 knows no 405: a method a path does not serve is an unknown route.
		return notFound("No such endpoint.")
	case fiber.StatusRequestEntityTooLarge:
		return &Error{Status: fe.Code, Kind: "PayloadTooLarge", Message: "The request body exceeds the size limit."}
	case fiber.StatusBadRequest:
		return &Error{Status: fe.Code, Kind: "ValidationError", Code: "invalid_request", Message: "The request could not be read."}
	default:
		return &Error{Status: fe.Code, Kind: "Error", Message: fe.Message}
	}
}

// decodeObject parses a JSON object body; anything else is invalid_json (docs/API.md §2).
// A body over the shape limits (checkShape) is refused before it is decoded.
func decodeObject(body []byte) (map[string]any, error) {
	if err := checkShape(body); err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, &Error{Status: fiber.StatusBadRequest, Kind: "ValidationError", Code: "invalid_json",
			Message: "The request body must be a JSON object."}
	}
	return m, nil
}

func logAttrs(c *fiber.Ctx) []any {
	return []any{slog.String("requestId", requestID(c)), slog.String("route", routeOf(c))}
}
