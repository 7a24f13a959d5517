package mongo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// TestTranslateUnavailable: every error meaning the database cannot serve now — the network,
// a deadline, a primary gone or stepping down, a shutdown, an interrupted operation, a write
// concern not met — leaves the store as unavailable (503); the server's other refusals do not.
func TestTranslateUnavailable(t *testing.T) {
	for _, c := range []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"deadline", fmt.Errorf("read: %w", context.DeadlineExceeded), true},
		{"canceled", context.Canceled, true},
		{"pool wait", topology.WaitQueueTimeoutError{}, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"unexpected EOF", fmt.Errorf("read header: %w", io.ErrUnexpectedEOF), true},
		{"connection error", topology.ConnectionError{Wrapped: io.EOF}, true},
		{"client disconnected", mongo.ErrClientDisconnected, true},
		{"not primary", mongo.CommandError{Code: 10107, Name: "NotWritablePrimary"}, true},
		{"not primary, no secondary ok", mongo.CommandError{Code: 13435}, true},
		{"stepped down", mongo.CommandError{Code: 189}, true},
		{"shutting down", mongo.CommandError{Code: 91}, true},
		{"interrupted", mongo.CommandError{Code: 11601}, true},
		{"interrupted at shutdown", mongo.CommandError{Code: 11600}, true},
		{"max time", mongo.CommandError{Code: 50}, true},
		{"cursor lost", mongo.CommandError{Code: 43}, true},
		{"retryable label", mongo.CommandError{Code: 1, Labels: []string{"RetryableWriteError"}}, true},
		{"not master message", mongo.CommandError{Code: 1, Message: "not master and secondaryOk=false"}, true},
		{"write concern timeout", mongo.WriteException{WriteConcernError: &mongo.WriteConcernError{Code: 64, Name: "WriteConcernFailed"}}, true},
		{"bulk write concern", mongo.BulkWriteException{WriteConcernError: &mongo.WriteConcernError{Code: 91}}, true},
		{"bad value", mongo.CommandError{Code: 2, Name: "BadValue"}, false},
		{"decode", errors.New("cannot decode"), false},
	} {
		got := translate("op", c.err)
		if errors.Is(got, tenants.ErrUnavailable) != c.unavailable {
			t.Errorf("%s: translate = %v; unavailable %v, want %v", c.name, got, !c.unavailable, c.unavailable)
		}
	}
	if got := translate("op", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: codeDuplicateKey}}}); got != tenants.ErrConflict {
		t.Errorf("duplicate key = %v, want ErrConflict", got)
	}
	if got := translate("op", mongo.ErrNoDocuments); got != tenants.ErrNotFound {
		t.Errorf("no documents = %v, want ErrNotFound", got)
	}
	if err := errBusy("erase"); !errors.Is(err, tenants.ErrUnavailable) {
		t.Errorf("contention = %v, want unavailable", err)
	}
}
