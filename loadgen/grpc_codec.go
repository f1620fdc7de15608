package loadgen

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// rawCodec sends a message already encoded to protobuf as it is and
// discards the response unread: no marshaling per attempt, nothing kept
// of a reply (grpc-go frees its receive buffers after Unmarshal; its
// default receive limit, 4 MiB, bounds one). Its name is "proto", so
// calls carry content-type application/grpc+proto as any client's do.
type rawCodec struct{}

var _ encoding.CodecV2 = rawCodec{}

// discardReply is the reply every call "decodes" into.
var discardReply = new(struct{})

// Marshal returns msg, a []byte, as it is.
func (rawCodec) Marshal(msg any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(msg.([]byte))}, nil
}

// Unmarshal discards the response message.
func (rawCodec) Unmarshal(mem.BufferSlice, any) error { return nil }

func (rawCodec) Name() string { return "proto" }
