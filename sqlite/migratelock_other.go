//go:build !unix

package sqlite

// lockMigrations does nothing where flock is missing: two processes starting at once on a
// data dir that needs a migration may then have to be started again.
func lockMigrations(string) (func(), error) { return func() {}, nil }
