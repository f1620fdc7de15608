package grpcgreeter

import (
	"context"
	"strconv"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// LabelAttempt is the label Config.AttemptLabel adds to the grpc_server_*
// series.
const LabelAttempt = "attempt"

// newMetrics returns go-grpc-middleware's server metrics, as a service
// would set them up (the counters only, no histogram), and their unary
// interceptor; with attemptLabel every series also has LabelAttempt.
func newMetrics(attemptLabel bool) (*grpcprom.ServerMetrics, grpc.UnaryServerInterceptor) {
	if !attemptLabel {
		m := grpcprom.NewServerMetrics()
		return m, m.UnaryServerInterceptor()
	}
	m := grpcprom.NewServerMetrics(grpcprom.WithContextLabels(LabelAttempt))
	return m, m.UnaryServerInterceptor(grpcprom.WithLabelsFromContext(attemptLabels))
}

// attemptLabels is the kind of a call from its incoming metadata:
// x-attempt as trigger sends it (1 or absent: first, 0: tracer, ≥ 2:
// retry), and grpc-previous-rpc-attempts, which grpc-go's own retry
// policy sets on every retry (gRFC A6), wins as "retry".
func attemptLabels(ctx context.Context) prometheus.Labels {
	md, _ := metadata.FromIncomingContext(ctx)
	return prometheus.Labels{LabelAttempt: attemptKind(md)}
}

func attemptKind(md metadata.MD) string {
	if v := md.Get("grpc-previous-rpc-attempts"); len(v) > 0 {
		if n, err := strconv.Atoi(v[0]); err == nil && n > 0 {
			return "retry"
		}
	}
	if v := md.Get("x-attempt"); len(v) > 0 {
		if n, err := strconv.Atoi(v[0]); err == nil {
			switch {
			case n == 0:
				return "tracer"
			case n >= 2:
				return "retry"
			}
		}
	}
	return "first"
}
