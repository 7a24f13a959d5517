package main

import (
	"context"
	"errors"

	"github.com/consentforms/consentforms/tenants"
)

// setStaffPassword sets a staff user's password (a forgotten one), which they must change at
// their next sign-in, and ends their sessions.
func setStaffPassword(ctx context.Context, s tenants.Stores, email, password string) (any, error) {
	st, err := staffByEmail(ctx, s, email)
	if err != nil {
		return nil, err
	}
	if err := provisioner(s).SetStaffPassword(ctx, cliActor, st, password, true, ""); err != nil {
		return nil, err
	}
	return map[string]any{"id": st.ID, "mustChangePassword": true}, nil
}

func staffByEmail(ctx context.Context, s tenants.Stores, email string) (tenants.Staff, error) {
	st, err := s.Staff.ByEmail(ctx, email)
	if errors.Is(err, tenants.ErrNotFound) {
		return st, errors.New("no staff user signs in with this e-mail")
	}
	return st, err
}
