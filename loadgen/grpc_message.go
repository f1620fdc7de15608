package loadgen

import (
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// encodeMessage encodes body, a request message of type in as protojson,
// to protobuf binary. An empty body is the empty message.
func encodeMessage(in protoreflect.MessageDescriptor, body []byte) ([]byte, error) {
	msg := dynamicpb.NewMessage(in)
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := protojson.Unmarshal(body, msg); err != nil {
			return nil, fmt.Errorf("message %s: %w", in.FullName(), err)
		}
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("message %s: %w", in.FullName(), err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
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
