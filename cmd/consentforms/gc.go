package main

import "runtime/debug"

// The garbage collector's defaults for this process, where the operator set neither GOGC nor
// GOMEMLIMIT (either one set is left as Go applies it).
//
// The server's live heap is small: about 7–20 MB while a 2-core machine accepts 7,000
// submissions a second. Go's default (GOGC=100) collects whenever the heap has doubled, so
// there every few MB of allocation, some 30 times a second; each cycle costs its fixed part
// (stacks, globals, the pauses) however little it frees. gcPercent lets the heap grow to five
// times what is live: under `bin/bench http`, 7 % more submissions a second and a tenth less
// CPU per submission, for about 30 MiB more memory (docs/OPERATIONS.md, Memory).
//
// memoryLimit bounds what five times can mean where the live heap is larger, as with many
// cores and many requests in flight: near it the collector runs as often as needed to stay
// below it (soft: Go never gives it more than half the CPU). It counts Go's own memory only;
// SQLite's page caches come on top of it. On 2 cores under the bench Go's own memory peaked at
// 71 MB, so the limit does not bind there.
const (
	gcPercent   = 400
	memoryLimit = 128 << 20
)

// gcDefaults applies gcPercent and memoryLimit where lookup (os.LookupEnv) finds no GOGC and
// no GOMEMLIMIT.
func gcDefaults(lookup func(string) (string, bool)) {
	if _, set := lookup("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := lookup("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
}
