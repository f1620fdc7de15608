package loadgen

import (
	"net/http"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/trigger-test/trigger/internal/grpcdesc"
)

// encodeMessage encodes body, a request message of type in as protojson,
// to protobuf binary: grpcdesc.Encode, the encoding the scenario's check
// made of the same message. An empty body is the empty message.
func encodeMessage(in protoreflect.MessageDescriptor, body []byte) ([]byte, error) {
	return grpcdesc.Encode(in, string(body))
}

// grpcMetadata is h as a call's metadata: keys lowercased, the tracking
// headers (the attempt sets its own) and Host left out.
func grpcMetadata(h http.Header) metadata.MD {
	md := make(metadata.MD, len(h)+3)
	for k, vs := range h {
		if isTrackingHeader(k) || strings.EqualFold(k, "Host") {
			continue
		}
		k = strings.ToLower(k)
		md[k] = append(md[k], vs...)
	}
	return md
}
