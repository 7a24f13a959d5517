package api

import (
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/gofiber/fiber/v2"
)

// anonymise is POST /api/v1/gdpr/search-and-anonymise (docs/API.md §5).
func (s *server) anonymise(c *fiber.Ctx) error {
	id, err := bodyIdentity(c, "phoneNumber")
	if err != nil {
		return err
	}
	done, err := s.Persons.Erase(c.UserContext(), authOf(c).tenant.ID, authOf(c).actor, requestID(c), id)
	if err != nil {
		return err
	}
	// removedMentions counts the records of others that only named the person in a custom
	// field: only those values went (docs/API.md §5.1).
	return c.JSON(struct {
		Success           bool           `json:"success"`
		AnonymisedRecords tenants.Counts `json:"anonymisedRecords"`
		RemovedMentions   int            `json:"removedMentions"`
	}{true, done.Counts, done.RemovedMentions})
}

// optionalString reads a key that may be absent, null or a string.
// bodyIdentity reads the person a JSON body names: "email" and the phone field (phoneField),
// each optional but at least one, under the same rules wherever a body names a person.
func bodyIdentity(c *fiber.Ctx, phoneField string) (ops.Identity, error) {
	body, err := decodeObject(c.Body())
	if err != nil {
		return ops.Identity{}, err
	}
	email, err := optionalString(body, "email")
	if err != nil {
		return ops.Identity{}, err
	}
	phone, err := optionalString(body, phoneField)
	if err != nil {
		return ops.Identity{}, err
	}
	return identity(email, phone, "email", phoneField, authOf(c).tenant.DefaultCountry)
}

func optionalString(body map[string]any, key string) (string, error) {
	v, ok := body[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", validation(key+" must be a string or null.", key)
	}
	return s, nil
}
