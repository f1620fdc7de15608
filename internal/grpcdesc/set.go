package grpcdesc

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/agext/levenshtein"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// MaxSetBytes bounds a descriptor set, from a file or gathered by
// reflection: 16 MiB, far more than the protos of any one service.
const MaxSetBytes = 16 << 20

// MaxFiles bounds the files of a descriptor set.
const MaxFiles = 1024

// FromSet builds the files of a serialized FileDescriptorSet; every file
// a file imports must be in the set (protoc --include_imports).
func FromSet(data []byte) (*protoregistry.Files, error) {
	if len(data) > MaxSetBytes {
		return nil, fmt.Errorf("the descriptor set is %d bytes; at most %d (16 MiB)", len(data), MaxSetBytes)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("not a protobuf FileDescriptorSet (protoc --descriptor_set_out, buf build -o): %s", clean(err))
	}
	return fromProtos(set.File)
}

// fromProtos builds the files of fds, each file's imports among them.
func fromProtos(fds []*descriptorpb.FileDescriptorProto) (*protoregistry.Files, error) {
	if len(fds) == 0 {
		return nil, fmt.Errorf("the descriptor set holds no file")
	}
	if len(fds) > MaxFiles {
		return nil, fmt.Errorf("the descriptor set holds %d files; at most %d", len(fds), MaxFiles)
	}
	files, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: fds})
	if err != nil {
		msg := clean(err)
		if strings.Contains(msg, "not found") {
			msg += " (make the set with its imports: protoc --include_imports, or buf build)"
		}
		return nil, fmt.Errorf("unusable descriptor set: %s", msg)
	}
	return files, nil
}

// methodSyntax is a method as a scenario names it: the service's full
// name (package and service), a slash, the method's name.
var methodSyntax = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*/[A-Za-z_][A-Za-z0-9_]*$`)

// CheckName checks the syntax of a method's name, "package.Service/Method"
// (the package may be empty); the error says what to write.
func CheckName(name string) error {
	if methodSyntax.MatchString(name) {
		return nil
	}
	if t := strings.TrimPrefix(name, "/"); t != name && methodSyntax.MatchString(t) {
		return fmt.Errorf("%q starts with a slash: write %q, the service's full name, a slash, the method", name, t)
	}
	if i := strings.LastIndex(name, "."); i > 0 && !strings.Contains(name, "/") && methodSyntax.MatchString(name[:i]+"/"+name[i+1:]) {
		return fmt.Errorf("%q names no method: write %q, the service's full name, a slash, the method", name, name[:i]+"/"+name[i+1:])
	}
	return fmt.Errorf("%q names no method: write the service's full name (its package, a dot, the service), a slash and the method, such as \"helloworld.Greeter/SayHello\"", name)
}

// FullMethod is name ("pkg.Service/Method") as gRPC sends it,
// "/pkg.Service/Method".
func FullMethod(name string) string { return "/" + name }

// Method finds the unary method name ("package.Service/Method") in files.
// An unknown one is an error naming the closest known method ("did you
// mean"), a streaming one an error too: a trigger test sends unary calls.
func Method(files *protoregistry.Files, name string) (protoreflect.MethodDescriptor, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	svc, meth, _ := strings.Cut(name, "/")
	var m protoreflect.MethodDescriptor
	if d, err := files.FindDescriptorByName(protoreflect.FullName(svc)); err == nil {
		if sd, ok := d.(protoreflect.ServiceDescriptor); ok {
			m = sd.Methods().ByName(protoreflect.Name(meth))
		}
	}
	if m == nil {
		known := Methods(files)
		if c := closest(name, known); c != "" {
			return nil, fmt.Errorf("no method %s in the descriptors; did you mean %q?", name, c)
		}
		return nil, fmt.Errorf("no method %s in the descriptors, which have %s", name, listSome(known, 8))
	}
	switch {
	case m.IsStreamingClient() && m.IsStreamingServer():
		return nil, fmt.Errorf("%s is a bidirectional streaming method; a trigger test sends unary calls only", name)
	case m.IsStreamingClient():
		return nil, fmt.Errorf("%s is a client streaming method; a trigger test sends unary calls only", name)
	case m.IsStreamingServer():
		return nil, fmt.Errorf("%s is a server streaming method; a trigger test sends unary calls only", name)
	}
	return m, nil
}

// Methods lists every method of every service in files, as a scenario
// names them ("package.Service/Method"), sorted.
func Methods(files *protoregistry.Files) []string {
	var out []string
	files.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		for i := 0; i < f.Services().Len(); i++ {
			s := f.Services().Get(i)
			for j := 0; j < s.Methods().Len(); j++ {
				out = append(out, string(s.FullName())+"/"+string(s.Methods().Get(j).Name()))
			}
		}
		return true
	})
	sort.Strings(out)
	return out
}

// listSome is up to n of names, quoted, or "no service" when empty.
func listSome(names []string, n int) string {
	if len(names) == 0 {
		return "no service"
	}
	q := make([]string, 0, n)
	for i, s := range names {
		if i == n {
			q = append(q, fmt.Sprintf("and %d more", len(names)-n))
			break
		}
		q = append(q, fmt.Sprintf("%q", s))
	}
	return strings.Join(q, ", ")
}

// closest returns the option nearest to given by edit distance (ignoring
// case), or "" when none is near: within a third of given's length, and
// at least 3 edits.
func closest(given string, options []string) string {
	limit := max(3, len(given)/3)
	best, bestDist := "", limit+1
	g := strings.ToLower(given)
	for _, o := range options {
		if d := levenshtein.Distance(g, strings.ToLower(o), nil); d < bestDist {
			best, bestDist = o, d
		}
	}
	if best != "" && bestDist > 0 && 2*bestDist > len(g) {
		return ""
	}
	return best
}

// clean is err's text without the "proto: " protobuf-go starts it with
// (sometimes with a no-break space, to keep it from being parsed).
func clean(err error) string {
	s := err.Error()
	for _, p := range []string{"proto: ", "proto:\u00a0"} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}
