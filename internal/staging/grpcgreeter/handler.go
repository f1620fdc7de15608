package grpcgreeter

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/examples/helloworld/helloworld"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Trailers of every SayHello answer, for tests that check the queue's
// order without timing it.
const (
	// TrailerArrival is the call's arrival number at the handler, 1 first.
	TrailerArrival = "x-greeter-arrival"
	// TrailerAhead is the number of calls waiting or in service when it
	// arrived.
	TrailerAhead = "x-greeter-ahead"
	// TrailerStart is its number in the order of service starts, 1 first;
	// absent when it was not served.
	TrailerStart = "x-greeter-start"
)

// slowGreeter is helloworld's Greeter with a queue: Workers calls are
// served at once, each for ServiceTime; the others wait in arrival order
// for a worker. The queue is a buffered channel used as a semaphore: Go
// hands a freed slot to the longest-blocked sender, so the waiting line is
// FIFO.
type slowGreeter struct {
	helloworld.UnimplementedGreeterServer
	cfg Config
	// slots holds a token per call in service; a call that finds it full
	// blocks on its send, in line.
	slots chan struct{}
	// stop ends the service times and waits at shutdown.
	stop <-chan struct{}

	arrivals atomic.Uint64 // calls that reached the handler
	inSystem atomic.Int64  // calls waiting or in service
	waiting  atomic.Int64  // calls waiting for a worker
	starts   atomic.Uint64 // service starts
	c        counts
}

// counts are the handler's cumulative counters behind Stats.
type counts struct {
	answered  atomic.Uint64 // served while the client was still there
	abandoned atomic.Uint64 // served after the client had gone (deadline or cancel)
	dropped   atomic.Uint64 // left the queue unserved: client gone, DropExpired
	refused   atomic.Uint64 // found MaxWaiting calls waiting: RESOURCE_EXHAUSTED
}

// SayHello answers "Hello " + name, as grpc-go's example does, after its
// turn in the queue and its service time. A client that leaves does not
// take its call out of the line unless DropExpired: System A.
func (g *slowGreeter) SayHello(ctx context.Context, in *helloworld.HelloRequest) (*helloworld.HelloReply, error) {
	arrival := g.arrivals.Add(1)
	ahead := g.inSystem.Add(1) - 1
	defer g.inSystem.Add(-1)
	trailer := metadata.Pairs(TrailerArrival, strconv.FormatUint(arrival, 10), TrailerAhead, strconv.FormatInt(ahead, 10))
	defer func() { _ = grpc.SetTrailer(ctx, trailer) }()

	if g.waiting.Add(1) > int64(g.cfg.MaxWaiting) {
		g.waiting.Add(-1)
		g.c.refused.Add(1)
		return nil, status.Error(codes.ResourceExhausted, "greeter: queue full")
	}
	var gone <-chan struct{} // nil: a client leaving goes unnoticed while it waits
	if g.cfg.DropExpired {
		gone = ctx.Done()
	}
	select {
	case g.slots <- struct{}{}:
		g.waiting.Add(-1)
	case <-gone:
		g.waiting.Add(-1)
		g.c.dropped.Add(1)
		return nil, status.FromContextError(ctx.Err()).Err()
	case <-g.stop:
		g.waiting.Add(-1)
		return nil, status.Error(codes.Unavailable, "greeter: shutting down")
	}
	defer func() { <-g.slots }()
	if g.cfg.DropExpired && ctx.Err() != nil { // it left as its turn came
		g.c.dropped.Add(1)
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	trailer.Set(TrailerStart, strconv.FormatUint(g.starts.Add(1), 10))
	// The service time is work that does not look at its client: a call
	// whose client leaves meanwhile is served to the end.
	t := time.NewTimer(g.cfg.ServiceTime)
	defer t.Stop()
	select {
	case <-t.C:
	case <-g.stop:
		return nil, status.Error(codes.Unavailable, "greeter: shutting down")
	}
	if ctx.Err() != nil {
		g.c.abandoned.Add(1)
	} else {
		g.c.answered.Add(1)
	}
	return &helloworld.HelloReply{Message: "Hello " + in.GetName()}, nil
}
