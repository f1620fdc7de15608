package grpcdesc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// MaxServices bounds the services a reflection fetch asks about.
const MaxServices = 256

// Load dials the gRPC target rawURL (grpc://host:port plaintext HTTP/2,
// grpcs://host:port TLS with tlsConf, nil for the system's roots) and
// fetches every service's descriptors from its reflection service
// (Fetch). It blocks until ctx ends at most; give it a deadline.
func Load(ctx context.Context, rawURL string, tlsConf *tls.Config) (*protoregistry.Files, error) {
	addr, creds, err := Dial(rawURL, tlsConf)
	if err != nil {
		return nil, err
	}
	cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	return Fetch(ctx, cc)
}

// Dial returns the address (host:port) and transport credentials of the
// gRPC target rawURL: grpc:// is plaintext (h2c), grpcs:// TLS with
// tlsConf (nil: the system's roots). A URL without a port gets 80 or 443.
func Dial(rawURL string, tlsConf *tls.Config) (string, credentials.TransportCredentials, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", nil, err
	}
	if u.Hostname() == "" {
		return "", nil, fmt.Errorf("%s has no host", rawURL)
	}
	port := u.Port()
	switch u.Scheme {
	case "grpc":
		if port == "" {
			port = "80"
		}
		return net.JoinHostPort(u.Hostname(), port), insecure.NewCredentials(), nil
	case "grpcs":
		if port == "" {
			port = "443"
		}
		if tlsConf == nil {
			tlsConf = &tls.Config{}
		}
		return net.JoinHostPort(u.Hostname(), port), credentials.NewTLS(tlsConf), nil
	}
	return "", nil, fmt.Errorf("%s is not a gRPC target: its scheme must be grpc:// or grpcs://", rawURL)
}

// Fetch asks cc's reflection service (grpc.reflection.v1, or v1alpha for
// a server that has only the older one) for every service it lists and
// the files they are declared in, with their imports: at most MaxServices
// services, MaxFiles files and MaxSetBytes bytes. The reflection services
// themselves are left out.
func Fetch(ctx context.Context, cc grpc.ClientConnInterface) (*protoregistry.Files, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the streams
	f := fetcher{files: map[string]*descriptorpb.FileDescriptorProto{}}
	var services []string
	var err error
	for _, open := range []func(context.Context, grpc.ClientConnInterface) (asker, error){openV1, openV1Alpha} {
		var ask asker
		if ask, err = open(ctx, cc); err == nil {
			services, _, err = ask(listServices, "*")
		}
		if status.Code(err) == codes.Unimplemented {
			continue // the older version, or none
		}
		f.ask = ask
		break
	}
	if err != nil {
		return nil, reflectionError(err)
	}
	if len(services) > MaxServices {
		return nil, fmt.Errorf("the server lists %d services; at most %d are read", len(services), MaxServices)
	}
	for _, s := range services {
		if strings.HasPrefix(s, "grpc.reflection.") {
			continue
		}
		if err := f.add(fileContainingSymbol, s); err != nil {
			return nil, fmt.Errorf("service %s: %w", s, err)
		}
	}
	// Imports the server did not send along.
	for missing := f.missing(); missing != ""; missing = f.missing() {
		if err := f.add(fileByFilename, missing); err != nil {
			return nil, fmt.Errorf("file %s: %w", missing, err)
		}
		if f.files[missing] == nil {
			return nil, fmt.Errorf("the reflection service did not send %s", missing)
		}
	}
	fds := make([]*descriptorpb.FileDescriptorProto, 0, len(f.files))
	for _, fd := range f.files {
		fds = append(fds, fd)
	}
	return fromProtos(fds)
}

// A reflection request's kinds.
const (
	listServices = iota
	fileContainingSymbol
	fileByFilename
)

// asker sends one reflection request of kind with its argument over one
// stream and returns the answer's services (listServices) or serialized
// files; an error answer is an error.
type asker func(kind int, arg string) (services []string, files [][]byte, err error)

// fetcher gathers files over one reflection stream (ask).
type fetcher struct {
	ask   asker
	files map[string]*descriptorpb.FileDescriptorProto
	bytes int
}

// add asks for the files kind and arg name and keeps them.
func (f *fetcher) add(kind int, arg string) error {
	_, raws, err := f.ask(kind, arg)
	if err != nil {
		return err
	}
	for _, raw := range raws {
		f.bytes += len(raw)
		if f.bytes > MaxSetBytes {
			return fmt.Errorf("the descriptors are more than %d bytes (16 MiB)", MaxSetBytes)
		}
		var fd descriptorpb.FileDescriptorProto
		if err := proto.Unmarshal(raw, &fd); err != nil {
			return fmt.Errorf("a file descriptor does not decode: %s", clean(err))
		}
		if f.files[fd.GetName()] == nil {
			f.files[fd.GetName()] = &fd
		}
		if len(f.files) > MaxFiles {
			return fmt.Errorf("the descriptors are more than %d files", MaxFiles)
		}
	}
	return nil
}

// The reflection service's one method in its two versions. v1alpha's
// messages are v1's, field for field (v1 was published as a copy), so
// one set of message types speaks to either.
const (
	reflectionV1      = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
	reflectionV1Alpha = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
)

// openV1 opens a grpc.reflection.v1 stream.
func openV1(ctx context.Context, cc grpc.ClientConnInterface) (asker, error) {
	return openReflection(ctx, cc, reflectionV1)
}

// openV1Alpha opens a grpc.reflection.v1alpha stream, for servers that
// have only the older version.
func openV1Alpha(ctx context.Context, cc grpc.ClientConnInterface) (asker, error) {
	return openReflection(ctx, cc, reflectionV1Alpha)
}

// openReflection opens a reflection stream on method and returns what
// asks over it.
func openReflection(ctx context.Context, cc grpc.ClientConnInterface, method string) (asker, error) {
	stream, err := cc.NewStream(ctx, &grpc.StreamDesc{StreamName: "ServerReflectionInfo", ServerStreams: true, ClientStreams: true}, method)
	if err != nil {
		return nil, err
	}
	return func(kind int, arg string) ([]string, [][]byte, error) {
		req := &rpb.ServerReflectionRequest{}
		switch kind {
		case listServices:
			req.MessageRequest = &rpb.ServerReflectionRequest_ListServices{ListServices: arg}
		case fileContainingSymbol:
			req.MessageRequest = &rpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: arg}
		default:
			req.MessageRequest = &rpb.ServerReflectionRequest_FileByFilename{FileByFilename: arg}
		}
		if err := stream.SendMsg(req); err != nil {
			if errors.Is(err, io.EOF) {
				err = stream.RecvMsg(new(rpb.ServerReflectionResponse)) // the stream's own error
			}
			return nil, nil, err
		}
		resp := new(rpb.ServerReflectionResponse)
		if err := stream.RecvMsg(resp); err != nil {
			return nil, nil, err
		}
		if e := resp.GetErrorResponse(); e != nil {
			return nil, nil, fmt.Errorf("the reflection service answered %s: %s", codes.Code(e.GetErrorCode()), e.GetErrorMessage())
		}
		services := []string{}
		for _, s := range resp.GetListServicesResponse().GetService() {
			services = append(services, s.GetName())
		}
		return services, resp.GetFileDescriptorResponse().GetFileDescriptorProto(), nil
	}, nil
}

// missing is the name of a file imported but not yet fetched, "" when
// none.
func (f *fetcher) missing() string {
	for _, fd := range f.files {
		for _, dep := range fd.GetDependency() {
			if f.files[dep] == nil {
				return dep
			}
		}
	}
	return ""
}

// reflectionError says what a failed reflection call means.
func reflectionError(err error) error {
	if status.Code(err) == codes.Unimplemented {
		return fmt.Errorf("the server has no reflection service (grpc.reflection.v1 or v1alpha): register it (grpc-go: reflection.Register) or give the target a descriptor_set: %w", err)
	}
	return fmt.Errorf("reflection: %w", err)
}
