// Command consentforms runs the consentforms server and its provisioning CLI.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	gcDefaults(os.LookupEnv)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		os.Exit(exitCode(err, os.Stderr))
	}
}
