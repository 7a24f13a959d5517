//go:build benchdiscard

package sqlite

import (
	"fmt"
	"os"
)

// discardIngest makes Writer.Ingest answer stored without writing anything: a binary built
// with the benchdiscard tag (make bench-parts builds bin/consentforms-discard) measures the
// request path of accept-submission alone (decoding, validation, authentication, the answer)
// against the same binary with its store. It loses every submission it acknowledges: it is a
// measuring instrument, never a server.
const discardIngest = true

func init() {
	fmt.Fprintln(os.Stderr, "consentforms built with the benchdiscard tag: submissions are acknowledged and NOT stored; for measurement only")
}
