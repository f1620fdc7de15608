// Command trigger runs trigger tests: it sizes a load spike that pushes a
// service's queue wait past its clients' timeout, drives it with the clients'
// real timeout and retry policy, and tells whether the service comes back.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/trigger-test/trigger/internal/cli"
)

func main() {
	// Ctrl-C, SIGTERM (a CI job's or Kubernetes' stop), SIGHUP (a closed
	// terminal or SSH session) and SIGQUIT all mean the same: stop.
	sig := make(chan os.Signal, 3)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	ctx, cancel := context.WithCancelCause(context.Background())
	hurry := make(chan struct{})
	// The first signal stops the load and lets the run write what it
	// measured (metrics of the last seconds included); the second stops
	// the waiting and writes at once; the third exits on the spot.
	go func() {
		s := <-sig
		cancel(fmt.Errorf("%w: %s", context.Canceled, s))
		<-sig
		fmt.Fprintln(os.Stderr, "trigger: interrupted again: writing what was measured without waiting")
		close(hurry)
		<-sig
		os.Exit(cli.ExitInterrupted)
	}()
	// A run with a fault starts this binary again as its fault guard,
	// which puts the fault back if the run dies without doing so.
	if exe, err := os.Executable(); err == nil {
		ctx = cli.WithFaultGuard(ctx, []string{exe, "fault-guard"})
	}
	code := cli.Main(cli.WithHurry(ctx, hurry), os.Args[1:], os.Stdout, os.Stderr)
	cancel(nil)
	os.Exit(code)
}
