package main

import "testing"

// storeEnv is the environment that points a test server at the suite's store: nothing for the
// embedded store (a fresh data dir is fresh data).
func storeEnv(t *testing.T) []string { return nil }
