package specimen

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

var update = flag.Bool("update", false, "rewrite ../specimen.protoset from the descriptors built in Go")

// protosetPath is the descriptor set the repository ships, for scenarios
// that name it (descriptor_set) and for tools such as grpcurl -protoset.
const protosetPath = "../specimen.protoset"

// The shipped descriptor set is the one the Go code builds: regenerate it
// with `go test ./examples/specimen/specimen -run TestProtosetIsCurrent -update`.
func TestProtosetIsCurrent(t *testing.T) {
	want := DescriptorSet()
	if *update {
		if err := os.WriteFile(protosetPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(protosetPath)
	if err != nil {
		t.Fatalf("%v (generate it with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from DescriptorSet(): run go test ./examples/specimen/specimen -run TestProtosetIsCurrent -update", protosetPath)
	}
	// It reads back as a descriptor set a client can resolve the call from.
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(got, &set); err != nil {
		t.Fatal(err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		t.Fatal(err)
	}
	d, err := files.FindDescriptorByName(GRPCService)
	if err != nil {
		t.Fatal(err)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		t.Fatalf("%s is a %T", GRPCService, d)
	}
	m := sd.Methods().ByName("Do")
	if m == nil || m.Input().FullName() != "specimen.WorkRequest" || m.Output().FullName() != "specimen.WorkReply" ||
		m.IsStreamingClient() || m.IsStreamingServer() {
		t.Fatalf("method Do: %v", m)
	}
	if f := m.Input().Fields(); f.ByName("id").Number() != 1 || f.ByName("cost").Number() != 2 {
		t.Fatalf("WorkRequest fields %v", f)
	}
}
