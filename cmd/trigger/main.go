// Command trigger runs trigger tests: it sizes a load spike that pushes a
// service's queue wait past its clients' timeout, drives it with the clients'
// real timeout and retry policy, and tells whether the service comes back.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/trigger-test/trigger/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal asks the run to stop and write what it measured; once
	// it has, a second signal kills the process the default way.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
