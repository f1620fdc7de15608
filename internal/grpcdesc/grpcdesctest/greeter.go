// Package grpcdesctest is the tests' gRPC service: grpc-go's helloworld
// Greeter (its proto built in Go, never by protoc), with a streaming
// method beside SayHello, as a descriptor set or served in-process with
// reflection.
package grpcdesctest

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/reflection"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	apb "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Greeter is helloworld.proto: message HelloRequest { string name = 1;
// int64 times = 2; }, message HelloReply { string message = 1; }, service
// Greeter { rpc SayHello(HelloRequest) returns (HelloReply); rpc
// SayHelloStream(HelloRequest) returns (stream HelloReply); }.
func Greeter() *descriptorpb.FileDescriptorProto {
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	i64 := descriptorpb.FieldDescriptorProto_TYPE_INT64.Enum()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	field := func(name, json string, n int32, t *descriptorpb.FieldDescriptorProto_Type) *descriptorpb.FieldDescriptorProto {
		return &descriptorpb.FieldDescriptorProto{Name: proto.String(name), JsonName: proto.String(json), Number: proto.Int32(n), Type: t, Label: opt}
	}
	return &descriptorpb.FileDescriptorProto{
		Name:    proto.String("helloworld.proto"),
		Package: proto.String("helloworld"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("HelloRequest"), Field: []*descriptorpb.FieldDescriptorProto{
				field("name", "name", 1, str), field("times", "times", 2, i64)}},
			{Name: proto.String("HelloReply"), Field: []*descriptorpb.FieldDescriptorProto{field("message", "message", 1, str)}},
		},
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("Greeter"),
			Method: []*descriptorpb.MethodDescriptorProto{
				{Name: proto.String("SayHello"), InputType: proto.String(".helloworld.HelloRequest"), OutputType: proto.String(".helloworld.HelloReply")},
				{Name: proto.String("SayHelloStream"), InputType: proto.String(".helloworld.HelloRequest"), OutputType: proto.String(".helloworld.HelloReply"),
					ServerStreaming: proto.Bool(true)},
			},
		}},
	}
}

// Set is Greeter as a serialized FileDescriptorSet, as protoc
// --descriptor_set_out writes it.
func Set() []byte {
	b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{Greeter()}})
	if err != nil {
		panic(err)
	}
	return b
}

// Files is Greeter built.
func Files() *protoregistry.Files {
	f, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{Greeter()}})
	if err != nil {
		panic(err)
	}
	return f
}

// Reflection is the reflection service Serve registers.
type Reflection int

const (
	// NoReflection: none.
	NoReflection Reflection = iota
	// ReflectionV1 is grpc.reflection.v1.
	ReflectionV1
	// ReflectionV1Alpha is grpc.reflection.v1alpha alone, as older
	// servers have it.
	ReflectionV1Alpha
)

// Serve serves the Greeter on a loopback port with the reflection service
// refl until the test ends, and returns its address (host:port). SayHello
// answers an empty HelloReply.
func Serve(t testing.TB, refl Reflection) string {
	t.Helper()
	files := Files()
	d, _ := files.FindDescriptorByName("helloworld.Greeter")
	sd := d.(protoreflect.ServiceDescriptor)
	in, out := sd.Methods().ByName("SayHello").Input(), sd.Methods().ByName("SayHello").Output()
	s := grpc.NewServer()
	s.RegisterService(&grpc.ServiceDesc{
		ServiceName: "helloworld.Greeter",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "SayHello", Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			if err := dec(dynamicpb.NewMessage(in)); err != nil {
				return nil, err
			}
			return dynamicpb.NewMessage(out), nil
		}}},
		Streams: []grpc.StreamDesc{{StreamName: "SayHelloStream", ServerStreams: true, Handler: func(any, grpc.ServerStream) error { return nil }}},
	}, struct{}{})
	opts := reflection.ServerOptions{Services: s, DescriptorResolver: files}
	switch refl {
	case ReflectionV1:
		rpb.RegisterServerReflectionServer(s, reflection.NewServerV1(opts))
	case ReflectionV1Alpha:
		apb.RegisterServerReflectionServer(s, reflection.NewServer(opts))
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Serve(lis) }()
	t.Cleanup(func() { s.Stop(); <-done })
	return lis.Addr().String()
}
