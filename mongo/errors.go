package mongo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"

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

// unreachable reports an error after which the database may answer again: the server could
// not be reached, the connection to it was lost, a deadline ran out, or the server answered
// that it cannot serve now (not primary, shutting down, interrupted, a write concern not met in
// time). Each is a 503 that a repeat may cure, never a 500.
func unreachable(err error) bool {
	var sse topology.ServerSelectionError
	var ce topology.ConnectionError
	// A pool cleared after another operation's connection was lost: this one never ran.
	var pool driver.RetryablePoolError
	var ne net.Error
	switch {
	case mongo.IsNetworkError(err), mongo.IsTimeout(err), errors.As(err, &sse), errors.As(err, &ce), errors.As(err, &pool),
		errors.As(err, &ne), errors.Is(err, mongo.ErrClientDisconnected), errors.Is(err, topology.ErrTopologyClosed),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return true
	}
	return transientServerError(err)
}

// transientCodes are the server's codes for "cannot serve this now": a primary stepping down
// or gone, a shutdown, an interrupted operation, a time limit, a write concern not met in
// time, a cursor lost with its connection.
var transientCodes = []int{
	6,     // HostUnreachable
	7,     // HostNotFound
	43,    // CursorNotFound
	50,    // MaxTimeMSExpired
	64,    // WriteConcernFailed
	89,    // NetworkTimeout
	91,    // ShutdownInProgress
	112,   // WriteConflict
	133,   // FailedToSatisfyReadPreference
	134,   // ReadConcernMajorityNotAvailableYet
	189,   // PrimarySteppedDown
	262,   // ExceededTimeLimit
	9001,  // SocketException
	10107, // NotWritablePrimary
	11600, // InterruptedAtShutdown
	11601, // Interrupted
	11602, // InterruptedDueToReplStateChange
	13435, // NotPrimaryNoSecondaryOk
	13436, // NotPrimaryOrSecondary
}

// transientLabels are the labels the driver and the server put on errors a repeat may cure.
var transientLabels = []string{"NetworkError", "RetryableWriteError", "TransientTransactionError", "SystemOverloadedError", "RetryableError"}

// transientServerError reports a server's answer (or a bulk write's write concern error) that
// says it cannot serve now.
func transientServerError(err error) bool {
	var se mongo.ServerError
	if !errors.As(err, &se) {
		return false
	}
	for _, l := range transientLabels {
		if se.HasErrorLabel(l) {
			return true
		}
	}
	for _, c := range transientCodes {
		if se.HasErrorCode(c) {
			return true
		}
	}
	// "not master" / "node is recovering" from servers that answer with a message only.
	return se.HasErrorMessage("not master") || se.HasErrorMessage("not primary") || se.HasErrorMessage("node is recovering")
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
