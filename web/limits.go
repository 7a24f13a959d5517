package web

import "strconv"

// Limits the forms mirror from the domain for their hints, minlength and maxlength; a test in
// package admin keeps each equal to the rule it mirrors.
const (
	MinPasswordLength = 12  // tenants.MinPasswordLength
	MaxTenantName     = 200 // provision.MaxTenantName
	MaxKeyName        = 100 // provision.MaxKeyName
	MaxTokenName      = 100 // provision.MaxTokenName
	MaxFormID         = 128 // tenants.MaxFormIDLength
)

var passwordHint = "At least " + strconv.Itoa(MinPasswordLength) + " characters."

// n is a limit as an attribute value.
func n(limit int) string { return strconv.Itoa(limit) }
