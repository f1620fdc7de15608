package loadgen

import "google.golang.org/protobuf/reflect/protoreflect"

// GRPCCall makes a Request a unary gRPC call: its URL is grpc://host:port
// (plaintext HTTP/2) or grpcs://host:port (TLS, Config.TLS), its Header
// the call's metadata, and its Body the request message as protojson,
// which may hold per-request markers like an HTTP body. The message is
// encoded to protobuf once per logical request (once per driver when it
// holds none) and sent as it is by every attempt.
type GRPCCall struct {
	// Method is the call's full method name, "/package.Service/Method".
	Method string
	// Input is the request message's type, to encode Body.
	Input protoreflect.MessageDescriptor
}
