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
// measuring instrument, never a server, so it refuses to run at all unless its environment
// says discardEnv=discardConsent, as the bench's does.
const discardIngest = true

// discardEnv and discardConsent are what a benchdiscard build needs in its environment to run.
const (
	discardEnv     = "CONSENTFORMS_BENCH_DISCARD"
	discardConsent = "acknowledge-and-lose-every-submission"
)

func init() {
	if os.Getenv(discardEnv) != discardConsent {
		fmt.Fprintf(os.Stderr, "consentforms built with the benchdiscard tag acknowledges submissions without storing them; it runs only with %s=%s (make bench-parts)\n", discardEnv, discardConsent)
		os.Exit(2)
	}
	fmt.Fprintln(os.Stderr, "consentforms built with the benchdiscard tag: submissions are acknowledged and NOT stored; for measurement only")
}
