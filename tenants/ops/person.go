package ops

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
)

// FindPerson returns the tenant's records of every kind that match the identity, newest
// first: the admin UI's "find a person". It reads through the match-key index, as erasure
// does, so it finds exactly the records an erasure of the identity would anonymise.
func (s *Service) FindPerson(ctx context.Context, tenantID string, id Identity) ([]tenants.Record, error) {
	recs, err := s.find(ctx, tenantID, id)
	if err != nil {
		return nil, wrap("find person", err)
	}
	return recs, nil
}
