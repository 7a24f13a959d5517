// Command bench measures consentforms on this machine and prints numbers for the closing
// notes: `bench http` (accept-submission under wrk next to a parse-only ceiling) and
// `bench store` (erasure and unsubscribe latency with 100k records per type).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: bench http|store [-bin path]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	bin := fs.String("bin", "bin/consentforms", "the consentforms binary")
	dur := fs.Duration("d", 0, "wrk duration per run (http; default 15s)")
	conns := fs.Int("c", 64, "wrk connections (http)")
	people := fs.Int("people", 50000, "persons to seed, each with 2 records per type (store)")
	samples := fs.Int("n", 30, "timed operations of each kind (store)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	switch args[0] {
	case "http":
		return benchHTTP(ctx, *bin, *dur, *conns)
	case "store":
		_, _ = people, samples
		return fmt.Errorf("store benchmark: being rebuilt")
	default:
		return fmt.Errorf("unknown benchmark %q", args[0])
	}
}
