package grpcdesc

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/trigger-test/trigger/internal/grpcdesc/grpcdesctest"
)

// TestFromSetAndMethod: a descriptor set resolves a unary method; an
// unknown one names the closest, a streaming one is refused, a bad name
// says what to write.
func TestFromSetAndMethod(t *testing.T) {
	files, err := FromSet(grpcdesctest.Set())
	if err != nil {
		t.Fatal(err)
	}
	m, err := Method(files, "helloworld.Greeter/SayHello")
	if err != nil || m.Input().FullName() != "helloworld.HelloRequest" {
		t.Fatalf("Method = %v, %v", m, err)
	}
	for name, want := range map[string]string{
		"helloworld.Greeter/SayHelo":        `did you mean "helloworld.Greeter/SayHello"?`,
		"helloworld.Greter/SayHello":        `did you mean "helloworld.Greeter/SayHello"?`,
		"other.Thing/Do":                    `which have "helloworld.Greeter/SayHello", "helloworld.Greeter/SayHelloStream"`,
		"helloworld.Greeter/SayHelloStream": "server streaming method; a trigger test sends unary calls only",
		"/helloworld.Greeter/SayHello":      `starts with a slash: write "helloworld.Greeter/SayHello"`,
		"helloworld.Greeter.SayHello":       `write "helloworld.Greeter/SayHello"`,
		"not a method":                      "names no method",
	} {
		_, err := Method(files, name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Method(%q) = %v, want an error with %q", name, err, want)
		}
	}
	if got := Methods(files); len(got) != 2 {
		t.Errorf("Methods = %v", got)
	}
	if FullMethod("a.B/C") != "/a.B/C" {
		t.Error("FullMethod")
	}
}

// TestFromSetErrors: garbage, an empty set and a set missing an import
// are errors that say what to do.
func TestFromSetErrors(t *testing.T) {
	g := grpcdesctest.Greeter()
	g.Dependency = []string{"google/protobuf/empty.proto"}
	noImport, _ := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{g}})
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"garbage":   {[]byte("not a protoset\xff\xff"), "not a protobuf FileDescriptorSet"},
		"empty":     {nil, "holds no file"},
		"no import": {noImport, "--include_imports"},
		"too large": {make([]byte, MaxSetBytes+1), "at most"},
	} {
		if _, err := FromSet(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: FromSet = %v, want %q", name, err, c.want)
		}
	}
}

// TestEncode: a message of the method's input encodes; a field it does
// not have is an error naming it and the closest; a wrong type is an error.
func TestEncode(t *testing.T) {
	in := grpcdesctest.Files()
	m, _ := Method(in, "helloworld.Greeter/SayHello")
	b, err := Encode(m.Input(), `{"name":"x","times":"3"}`)
	if err != nil {
		t.Fatal(err)
	}
	got := dynamicpb.NewMessage(m.Input())
	if err := proto.Unmarshal(b, got); err != nil || got.Get(m.Input().Fields().ByName("name")).String() != "x" {
		t.Errorf("decoded %v, %v", got, err)
	}
	// No message is the empty message, as the driver sends it: zero bytes.
	for _, js := range []string{"", "  \n", "{}"} {
		if b, err := Encode(m.Input(), js); err != nil || b == nil || len(b) != 0 {
			t.Errorf("Encode(%q) = %v, %v; want zero bytes", js, b, err)
		}
	}
	for js, want := range map[string]string{
		`{"nme":"x"}`:   `unknown field "nme"; did you mean "name"?`,
		`{"zzzzzz":1}`:  `helloworld.HelloRequest has "name", "times"`,
		`{"name":1}`:    "the message is no helloworld.HelloRequest",
		`{"times":"x"}`: "the message is no helloworld.HelloRequest",
		`not json`:      "the message is no helloworld.HelloRequest",
	} {
		if _, err := Encode(m.Input(), js); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Encode(%s) = %v, want %q", js, err, want)
		}
	}
}

// TestLoadByReflection fetches the Greeter's descriptors from an
// in-process grpc-go server's reflection service, and says what is wrong
// with a server that has none.
func TestLoadByReflection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	files, err := Load(ctx, "grpc://"+grpcdesctest.Serve(t, grpcdesctest.ReflectionV1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Method(files, "helloworld.Greeter/SayHello"); err != nil {
		t.Error(err)
	}
	if got := Methods(files); len(got) != 2 {
		t.Errorf("Methods = %v (the reflection service left out)", got)
	}
	// A server with only the older v1alpha.
	files, err = Load(ctx, "grpc://"+grpcdesctest.Serve(t, grpcdesctest.ReflectionV1Alpha), nil)
	if err != nil {
		t.Fatalf("v1alpha: %v", err)
	}
	if _, err := Method(files, "helloworld.Greeter/SayHello"); err != nil {
		t.Errorf("v1alpha: %v", err)
	}
	_, err = Load(ctx, "grpc://"+grpcdesctest.Serve(t, grpcdesctest.NoReflection), nil)
	if err == nil || !strings.Contains(err.Error(), "no reflection service") {
		t.Errorf("Load without reflection = %v", err)
	}
	if _, err := Load(ctx, "http://127.0.0.1:1", nil); err == nil || !strings.Contains(err.Error(), "grpc:// or grpcs://") {
		t.Errorf("Load(http) = %v", err)
	}
}
