// Command bench measures consentforms on this machine: `bench http` (accept-submission under
// wrk next to a parse-only ceiling, with new persons and with one shared phone number; `bench
// ceiling` is that ceiling's process),
// `bench sms` (SMS opt-outs, Twilio and Telnyx, at 100k records),
// `bench store` (person operations, admin pages, audit export and restart with 120k records)
// `bench crash` (SIGKILL under load loses no acknowledged submission) and `bench soak` (a long
// mixed load, the server's memory, goroutines, open files and database size every minute).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
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
		return fmt.Errorf("usage: bench http|ceiling|store|sms|crash|soak [-bin path]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	bin := fs.String("bin", "bin/consentforms", "the consentforms binary")
	dur := fs.Duration("d", 0, "wrk duration per run (http; default 5s)")
	base := fs.String("base", "", "a second consentforms binary measured in the same rounds, alternating (http)")
	rounds := fs.Int("rounds", 3, "measured rounds, each the ceiling and every binary once (http)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address (ceiling)")
	conns := fs.Int("c", 64, "wrk connections (http)")
	people := fs.Int("people", 15000, "persons to seed, each with 2 records per type (store; sms: default 12500, 100k records)")
	samples := fs.Int("n", 30, "timed operations of each kind (store; sms: STOPs per provider, default 2000)")
	texts := fs.Bool("texts", false, "alternate the plain form with one that has consent texts and double opt-in by e-mail, instead of the shared-phone runs (http)")
	keep := fs.String("keep", "", "seed into this data dir and keep it afterwards; a dir seeded so before is measured again without seeding (store)")
	discard := fs.String("discard", "", "a binary built with -tags benchdiscard (stores nothing): measure the parts of a submission's cost instead (http)")
	store := fs.String("store", "sqlite", "sqlite, or mongo: MongoDB's stand-in (FerretDB) started here on loopback (crash, soak)")
	rate := fs.Int("rate", 40, "operations a second (soak)")
	withMail := fs.Bool("mail", false, "with -texts, a third target: the same build with a mail server, mailing each confirmation to a local SMTP sink (http)")
	workers := fs.Int("workers", 8, "clients sending at once (soak)")
	mongoURI := fs.String("mongo-uri", "", "a real MongoDB to soak instead of the stand-in (soak -store mongo)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch args[0] {
	case "http":
		return benchHTTP(ctx, *bin, *base, *discard, *dur, *conns, *rounds, *texts, *withMail)
	case "ceiling":
		return serveCeiling(*addr)
	case "store":
		return benchStore(ctx, *bin, *people, *samples, *keep)
	case "sms":
		if !set["people"] {
			*people = 12500
		}
		if !set["n"] {
			*samples = 2000
		}
		return benchSMS(ctx, *bin, *people, *samples)
	case "crash":
		if *dur == 0 {
			*dur = 5 * time.Second
		}
		if *store == "mongo" {
			return benchCrashMongo(ctx, *bin, *dur)
		}
		return benchCrash(ctx, *bin, *dur, nil, "SQLite")
	case "soak":
		if *dur == 0 {
			*dur = 30 * time.Minute
		}
		return benchSoak(ctx, *bin, *store, *mongoURI, *dur, *rate, *workers)
	default:
		return fmt.Errorf("unknown benchmark %q", args[0])
	}
}
