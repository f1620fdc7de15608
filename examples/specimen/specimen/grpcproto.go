package specimen

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// The gRPC face of the specimen, built in Go (no protoc, no generated code):
//
//	syntax = "proto3";
//	package specimen;
//
//	service Work {
//	  rpc Do(WorkRequest) returns (WorkReply);
//	}
//	message WorkRequest {
//	  string id = 1;    // the caller's request id; not read by the model
//	  double cost = 2;  // service time in units of 1/c; 0 (unset) = 1, as "/work?cost="
//	}
//	message WorkReply {}
const (
	// ProtoFile is the name of the specimen's .proto file in its
	// descriptors.
	ProtoFile = "specimen.proto"
	// GRPCService is the full name of the specimen's gRPC service.
	GRPCService = "specimen.Work"
	// GRPCMethod is the full method of the one unary call, as grpc-go
	// names it ("/package.Service/Method").
	GRPCMethod = "/specimen.Work/Do"
)

// fileProto is specimen.proto as a FileDescriptorProto, as protoc would
// write it in a descriptor set (json_name filled in).
func fileProto() *descriptorpb.FileDescriptorProto {
	optional := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	return &descriptorpb.FileDescriptorProto{
		Name:    proto.String(ProtoFile),
		Package: proto.String("specimen"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{
				Name: proto.String("WorkRequest"),
				Field: []*descriptorpb.FieldDescriptorProto{
					{Name: proto.String("id"), JsonName: proto.String("id"), Number: proto.Int32(1), Label: optional,
						Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()},
					{Name: proto.String("cost"), JsonName: proto.String("cost"), Number: proto.Int32(2), Label: optional,
						Type: descriptorpb.FieldDescriptorProto_TYPE_DOUBLE.Enum()},
				},
			},
			{Name: proto.String("WorkReply")},
		},
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("Work"),
			Method: []*descriptorpb.MethodDescriptorProto{{
				Name:       proto.String("Do"),
				InputType:  proto.String(".specimen.WorkRequest"),
				OutputType: proto.String(".specimen.WorkReply"),
			}},
		}},
	}
}

// workFile is specimen.proto resolved, built once at start: it is
// constant, and TestProtosetIsCurrent builds it.
var workFile = mustFile()

func mustFile() protoreflect.FileDescriptor {
	fd, err := protodesc.NewFile(fileProto(), nil)
	if err != nil {
		panic(fmt.Sprintf("specimen: %s: %v", ProtoFile, err))
	}
	return fd
}

// Descriptors of the call, from workFile.
var (
	workService    = workFile.Services().ByName("Work")
	workRequest    = workFile.Messages().ByName("WorkRequest")
	workReply      = workFile.Messages().ByName("WorkReply")
	workCostField  = workRequest.Fields().ByName("cost")
	workMethodDesc = workService.Methods().ByName("Do")
)

// WorkFile returns the descriptor of specimen.proto (service specimen.Work,
// messages specimen.WorkRequest and specimen.WorkReply).
func WorkFile() protoreflect.FileDescriptor { return workFile }

// DescriptorSet returns specimen.proto as a serialized FileDescriptorSet,
// what `protoc --descriptor_set_out` writes (deterministic bytes): the
// content of examples/specimen/specimen.protoset.
func DescriptorSet() []byte {
	set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{fileProto()}}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err != nil {
		panic(fmt.Sprintf("specimen: marshal %s: %v", ProtoFile, err)) // a static message always marshals
	}
	return b
}
