// Command specimen serves the staging-service specimen on loopback until
// SIGINT or SIGTERM. Settings come from an HCL file (-config), then from
// flags, which win. See README.md beside this file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// run parses args, starts the specimen and serves until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, addr, pprofAddr, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if pprofAddr != "" {
		stopPprof, err := servePprof(pprofAddr)
		if err != nil {
			return err
		}
		defer stopPprof()
	}
	s, err := specimen.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = s.Close()
		return fmt.Errorf("specimen: listen: %w", err)
	}
	c := s.Config()
	var gln net.Listener
	if c.GRPCAddr != "" {
		if gln, err = net.Listen("tcp", c.GRPCAddr); err != nil {
			_ = ln.Close()
			_ = s.Close()
			return fmt.Errorf("specimen: gRPC listen: %w", err)
		}
	}
	fmt.Fprintf(stderr, "specimen: serving http://%s/work (%d pods × %g/s, %s, queue %s)\n",
		ln.Addr(), c.Pods, c.PodRate, c.ServiceTime, c.QueueMode)
	if gln != nil {
		fmt.Fprintf(stderr, "specimen: serving gRPC %s on %s (deadlines honoured: %t)\n",
			specimen.GRPCMethod, gln.Addr(), c.GRPCHonourDeadlines)
	}
	return s.ServeAll(ctx, ln, gln)
}

// parseFlags reads -config first, then applies the flags that were set.
// It returns the config, the listen address and the pprof address.
func parseFlags(args []string, stderr io.Writer) (specimen.Config, string, string, error) {
	fs := flag.NewFlagSet("specimen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		d      = specimen.DefaultConfig()
		config = fs.String("config", "", "HCL config file (flags given too win over it)")
		addr   = fs.String("addr", "127.0.0.1:8080", "listen address")
		pprof  = fs.String("pprof-addr", "", "serve net/http/pprof on this address too (debugging; off when empty)")
		f      = flagValues{}
	)
	f.define(fs, d)
	if err := fs.Parse(args); err != nil {
		return d, "", "", err
	}
	if fs.NArg() > 0 {
		return d, "", "", fmt.Errorf("specimen: unexpected argument %q", fs.Arg(0))
	}
	cfg := specimen.Config{}
	if *config != "" {
		var err error
		if cfg, err = specimen.LoadConfigFile(*config, cfg); err != nil {
			return cfg, "", "", err
		}
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if err := f.apply(&cfg, set); err != nil {
		return cfg, "", "", err
	}
	return cfg, *addr, *pprof, nil
}

// servePprof serves the pprof handlers on addr until the returned stop.
func servePprof(addr string) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("specimen: pprof listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	return func() { _ = hs.Close(); <-done }, nil
}
