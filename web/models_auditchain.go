package web

import "time"

// ChainStatus is the last verification of the audit log's hash chain as the audit page shows
// it: for the user's tenant, or summed over every tenant for a platform admin who chose none.
type ChainStatus struct {
	Verified   bool      // a verification ran
	OK         bool      // every chain verified was whole
	UpTo       time.Time // the time of the last entry verified (the earliest over tenants)
	VerifiedAt time.Time // when it ran (the earliest over tenants)
	BrokenID   string    // the first entry that did not fit, when not OK
	Tenants    int       // how many tenants' chains it covers
}
