package main

import (
	"runtime/debug"
	"testing"
)

// TestGCDefaults: the server's collector defaults apply where the operator set no GOGC and no
// GOMEMLIMIT, and each variable the operator set is left as Go applied it.
func TestGCDefaults(t *testing.T) {
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	current := func() (int, int64) {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1)
	}

	gcDefaults(func(string) (string, bool) { return "", false })
	if p, l := current(); p != gcPercent || l != memoryLimit {
		t.Fatalf("unset: GOGC %d, GOMEMLIMIT %d; want %d, %d", p, l, gcPercent, memoryLimit)
	}

	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1 << 30)
	gcDefaults(func(k string) (string, bool) { return "set", k == "GOGC" || k == "GOMEMLIMIT" })
	if p, l := current(); p != 150 || l != 1<<30 {
		t.Fatalf("both set: GOGC %d, GOMEMLIMIT %d; want them left at 150, %d", p, l, 1<<30)
	}

	debug.SetGCPercent(150)
	gcDefaults(func(k string) (string, bool) { return "150", k == "GOGC" })
	if p, l := current(); p != 150 || l != memoryLimit {
		t.Fatalf("GOGC set: GOGC %d, GOMEMLIMIT %d; want 150, %d", p, l, memoryLimit)
	}
}
