package mongo

import (
	"context"
	"errors"
	"fmt"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// translate turns a driver error into the domain's: no documents → ErrNotFound, duplicate
// key → ErrConflict, unreachable database → ErrUnavailable, the rest wrapped with op.
func translate(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mongo.ErrNoDocuments):
		return tenants.ErrNotFound
	case mongo.IsDuplicateKeyError(err):
		return tenants.ErrConflict
	case errors.Is(err, errUnavailable), isUnreachable(err):
		return fmt.Errorf("%s: %w: %v", op, tenants.ErrUnavailable, err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", op, err)
	default:
		return fmt.Errorf("%s: %w", op, err)
	}
}

func isUnreachable(err error) bool {
	var sse topology.ServerSelectionError
	return mongo.IsNetworkError(err) || errors.As(err, &sse) || errors.Is(err, mongo.ErrClientDisconnected) ||
		errors.Is(err, topology.ErrTopologyClosed)
}
