package mongo

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// codeDuplicateKey is the server's error code for a unique index violation.
const codeDuplicateKey = 11000

// translate turns a driver error into the domain's: no documents → ErrNotFound, duplicate
// key → ErrConflict, an unreachable database → an error wrapping ErrUnavailable, the rest
// wrapped with op. A server's error is reduced to its codes: its message may quote the
// values of the document it refused, which must not reach a log.
func translate(op string, err error) error {
	var se mongo.ServerError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mongo.ErrNoDocuments):
		return tenants.ErrNotFound
	case unreachable(err):
		return &tenants.StoreError{Op: op, Err: fmt.Errorf("%w (%w)", tenants.ErrUnavailable, err)}
	case mongo.IsDuplicateKeyError(err):
		return tenants.ErrConflict
	case errors.As(err, &se):
		return &tenants.StoreError{Op: op, Err: fmt.Errorf("server error %s", codes(se.ErrorCodes()))}
	default:
		return &tenants.StoreError{Op: op, Err: err}
	}
}

// unreachable reports an error meaning the server could not be reached or the connection
// to it was lost.
func unreachable(err error) bool {
	var sse topology.ServerSelectionError
	var ce topology.ConnectionError
	// A pool cleared after another operation's connection was lost: this one never ran.
	var pool driver.RetryablePoolError
	return mongo.IsNetworkError(err) || errors.As(err, &sse) || errors.As(err, &ce) || errors.As(err, &pool) ||
		errors.Is(err, mongo.ErrClientDisconnected) || errors.Is(err, topology.ErrTopologyClosed)
}

// codes formats error codes for a message.
func codes(cs []int) string {
	cs = slices.Compact(slices.Sorted(slices.Values(cs)))
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = strconv.Itoa(c)
	}
	return "code " + strings.Join(out, ",")
}

// writeErrors splits the error of an unordered bulk insert into the codes of the documents
// that failed, by their index in the batch. ok is false when the error concerns the whole
// write (the server unreachable, a write concern not met): then err applies to every document.
func writeErrors(err error) (byIndex map[int]int, ok bool) {
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil || len(bwe.WriteErrors) == 0 {
		return nil, false
	}
	byIndex = map[int]int{}
	for _, we := range bwe.WriteErrors {
		byIndex[we.Index] = we.Code
	}
	return byIndex, true
}

// writeError is the error of one document in a bulk write: its code only.
func writeError(op string, code int) error {
	return &tenants.StoreError{Op: op, Err: fmt.Errorf("server error code %d", code)}
}
