package convert

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/trigger-test/trigger/internal/grpcdesc"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// grpcRequest is r made the gRPC call g (nil: r as it is, HTTP): its body
// the message's protojson, its header the metadata, and its GRPCCall the
// method as gRPC sends it with the input type the scenario resolved (nil
// with reflection, until ResolveGRPC). A gRPC call is an HTTP/2 POST.
func grpcRequest(r loadgen.Request, g *scenarios.GRPC) loadgen.Request {
	if g == nil {
		return r
	}
	r.Method = "POST"
	r.Body = []byte(g.Message)
	r.GRPC = &loadgen.GRPCCall{Method: grpcdesc.FullMethod(g.Method), Input: g.Input}
	return r
}

// ReflectionTimeout bounds ResolveGRPC's fetch from each server.
const ReflectionTimeout = 10 * time.Second

// ResolveGRPC gives every gRPC call of the driver's configuration its
// input message type and checks its message by encoding it once, with
// per-request values as samples: a call whose types the scenario read
// from its descriptor set is checked as it is; one whose types come from
// the server's reflection service has them fetched from its server, each
// server once, within ReflectionTimeout (the only network use, and only
// to the target's own gRPC hosts, which allow_hosts allows). It returns
// what was found, for `trigger check`: "" when the test has no gRPC call.
// The run's preflight and check call it before any load.
func (t *Test) ResolveGRPC(ctx context.Context) (string, error) {
	cfg := &t.Driver
	reqs := []*loadgen.Request{&cfg.Request}
	for i := range cfg.Mix {
		reqs = append(reqs, &cfg.Mix[i])
	}
	fetched := map[string]*protoregistry.Files{}
	var found []string
	seen := map[string]bool{}
	for _, r := range reqs {
		if r.GRPC == nil {
			continue
		}
		method := strings.TrimPrefix(r.GRPC.Method, "/")
		from := "the descriptor set"
		if r.GRPC.Input == nil {
			files, ok := fetched[r.URL]
			if !ok {
				var err error
				if files, err = t.reflect(ctx, r.URL); err != nil {
					return "", fmt.Errorf("%s: %w", vocab.Readable(r.URL, cfg.Slots), err)
				}
				fetched[r.URL] = files
			}
			m, err := grpcdesc.Method(files, method)
			if err != nil {
				return "", fmt.Errorf("%s by reflection: %w", vocab.Readable(r.URL, cfg.Slots), err)
			}
			r.GRPC.Input = m.Input()
			from = "reflection"
		}
		if _, err := grpcdesc.Encode(r.GRPC.Input, vocab.Sample(string(r.Body), cfg.Slots)); err != nil {
			return "", fmt.Errorf("%s: %w", method, err)
		}
		if key := method + " " + r.URL; !seen[key] {
			seen[key] = true
			found = append(found, fmt.Sprintf("%s (%s, from %s) at %s", method, r.GRPC.Input.FullName(), from, vocab.Readable(r.URL, cfg.Slots)))
		}
	}
	// The first request is the mix's first: the same call.
	if len(cfg.Mix) > 0 {
		cfg.Request = cfg.Mix[0]
	}
	if len(found) == 0 {
		return "", nil
	}
	return strings.Join(found, "; ") + ": one message encoded each", nil
}

// reflect fetches the descriptors of the gRPC server at rawURL from its
// reflection service, with the target's TLS setup for grpcs://.
func (t *Test) reflect(ctx context.Context, rawURL string) (*protoregistry.Files, error) {
	var tc *tls.Config
	if t.Driver.TLS != nil && strings.HasPrefix(rawURL, "grpcs://") {
		var err error
		if tc, err = t.Driver.TLS.Load(); err != nil {
			return nil, fmt.Errorf("target %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, ReflectionTimeout)
	defer cancel()
	files, err := grpcdesc.Load(ctx, rawURL, tc)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("the reflection service did not answer within %s: %w", ReflectionTimeout, err)
	}
	return files, err
}

// HasGRPC reports whether any request of the test is a gRPC call.
func (t *Test) HasGRPC() bool {
	if t.Driver.Request.GRPC != nil {
		return true
	}
	for _, r := range t.Driver.Mix {
		if r.GRPC != nil {
			return true
		}
	}
	return false
}

// GRPCText says, for plan, which gRPC methods the test calls, on which
// hosts, and where their message types come from; "" when it calls none.
// It sends nothing: types by reflection are fetched by check and the run.
func GRPCText(s *scenarios.Scenario) string {
	var lines []string
	for _, r := range s.Target.Mix() {
		g := r.GRPC
		if g == nil {
			continue
		}
		from := "types by reflection, fetched by check and the run's preflight"
		if g.Input != nil {
			from = fmt.Sprintf("%s from %s", g.Input.FullName(), s.Target.GRPC.DescriptorSet)
		}
		name := ""
		if r.Name != "" {
			name = fmt.Sprintf("request %q: ", r.Name)
		}
		lines = append(lines, fmt.Sprintf("%s%s at %s (%s)", name, g.Method, vocab.Readable(r.URL, s.Target.Slots), from))
	}
	return strings.Join(lines, "\n")
}
