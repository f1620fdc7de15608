package scenarios

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/trigger-test/trigger/internal/grpcdesc"
	"github.com/trigger-test/trigger/vocab"
)

// GRPC makes a target's (or a request block's) attempts unary gRPC calls
// (block "grpc"): the URL is then grpc://host:port (plaintext HTTP/2) or
// grpcs://host:port (TLS, target.tls), the headers are the call's
// metadata, and Message the request message as protojson.
type GRPC struct {
	// Method is the call's method, "package.Service/Method".
	Method string
	// Message is the request message as protojson (usually jsonencode's),
	// with per-request values' markers; default "{}".
	Message string
	// DescriptorSet is the descriptor set file the message types come
	// from, as opened (relative to the scenario's folder); Reflection
	// says they come from the server's reflection service instead, at
	// check and a run's preflight (plan sends nothing). The target's
	// grpc block only: one of the two, for every gRPC request of the
	// target.
	DescriptorSet string
	Reflection    bool
	// Input is Method's request message type, resolved from the
	// descriptor set when the scenario is read; nil with reflection.
	Input protoreflect.MessageDescriptor
}

// DefaultGRPCMessage is grpc.message: the empty message.
const DefaultGRPCMessage = "{}"

// grpcSchema is the target's grpc block's; requestGRPCSchema a request
// block's, whose message types come from the target's.
var (
	grpcSchema        = &hcl.BodySchema{Attributes: attrs("method", "descriptor_set", "reflection", "message")}
	requestGRPCSchema = &hcl.BodySchema{Attributes: attrs("method", "message")}
)

// IsGRPCURL reports whether raw is a gRPC target's URL: its scheme is
// grpc or grpcs.
func IsGRPCURL(raw string) bool {
	s, _, ok := strings.Cut(raw, "://")
	return ok && (strings.EqualFold(s, "grpc") || strings.EqualFold(s, "grpcs"))
}

// decodeGRPC decodes the optional grpc block of b (the block at path);
// nil when there is none. target says it is the target's own, which
// names where the message types come from (and reads the descriptor set);
// needMethod says the block must name the method.
func (d *decoder) decodeGRPC(b *body, path string, target, needMethod bool) *GRPC {
	blk := b.one("grpc", false, "")
	if blk == nil {
		return nil
	}
	g := d.open("grpc", path+".grpc", blk.Body, blk.DefRange, b.childSchema("grpc"))
	out := &GRPC{Method: g.str("method", "")}
	d.withPerRequest(func() { out.Message = g.str("message", DefaultGRPCMessage) })
	if needMethod {
		g.require("method", `the call's method, package.Service/Method, e.g. method = "helloworld.Greeter/SayHello".`)
	}
	if target {
		out.Reflection = g.boolean("reflection", false)
		out.DescriptorSet = d.descriptorSet(g)
	}
	return out
}

// descriptorSet reads the grpc block's descriptor_set, a file's path,
// within the folders the scenario may read (fileAccess), a regular file of
// at most grpcdesc.MaxSetBytes, and keeps its files for the validator. It
// returns the path as opened.
func (d *decoder) descriptorSet(g *body) string {
	file := g.str("descriptor_set", "")
	if file == "" {
		return ""
	}
	path := d.files.path(file)
	f, err := d.files.open(file)
	if errors.Is(err, ErrOutsideFolder) {
		g.fail("descriptor_set", "Descriptor set outside the scenario's folder", "%s", err)
		return ""
	}
	if err != nil {
		g.fail("descriptor_set", "Unusable descriptor set", "cannot read %s: %s", path, unwrapPath(err))
		return ""
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		g.fail("descriptor_set", "Unusable descriptor set", "%s is not a regular file: give the file protoc --descriptor_set_out or buf build -o wrote.", path)
		return ""
	}
	src, size, err := readOpened(f, path, grpcdesc.MaxSetBytes)
	if err == nil && size > grpcdesc.MaxSetBytes {
		err = fmt.Errorf("it is %d bytes; a descriptor set may have at most %d (16 MiB)", size, grpcdesc.MaxSetBytes)
	}
	if err == nil {
		d.grpcFiles, err = grpcdesc.FromSet(src)
	}
	if err != nil {
		g.fail("descriptor_set", "Unusable descriptor set", "%s: %s.", path, unwrapPath(err))
		return ""
	}
	return path
}

// grpc checks the target's gRPC calls: a grpc block exactly where the URL
// is grpc:// or grpcs://, where the message types come from, each
// method's name, and, with a descriptor set, that the method is a unary
// one the set has and its message encodes (markers as sample values).
func (v *validator) grpc(t *Target) {
	src := v.d.src
	calls := 0
	if len(t.Requests) == 0 {
		if src.ok("target.url") && src.has("target.url") {
			v.grpcURL("target", t.URL, t.GRPC != nil)
		}
		if t.GRPC != nil {
			calls++
			v.grpcCall(t, "target", t.GRPC)
			v.grpcMetadata("target", t.Headers)
		}
	} else if t.GRPC != nil {
		for _, name := range []string{"method", "message"} {
			v.errorf(src.has("target.grpc."+name), "target.grpc."+name, "Setting ignored with request blocks",
				"%s belongs in each request block's grpc block when the target has request blocks; the target's grpc block says where the message types come from (descriptor_set or reflection).", name)
		}
	}
	for i := range t.Requests {
		r := &t.Requests[i]
		p := fmt.Sprintf("target.request[%d]", i)
		if src.ok(p+".url") && src.has(p+".url") {
			v.grpcURL(p, r.URL, r.GRPC != nil)
		}
		if r.GRPC == nil {
			continue
		}
		calls++
		if t.GRPC == nil {
			v.errorf(true, p+".grpc", "Missing target grpc block",
				"Request %q is a gRPC call, but the target has no grpc block saying where its message types come from: add grpc { descriptor_set = \"service.protoset\" } or grpc { reflection = true } to the target.", r.Name)
			continue
		}
		r.GRPC.Reflection, r.GRPC.DescriptorSet = t.GRPC.Reflection, t.GRPC.DescriptorSet
		v.grpcCall(t, p, r.GRPC)
		v.grpcMetadata(p, r.Headers)
	}
	if calls > 0 {
		v.warnf(src.has("target.ok_status"), "target.ok_status", "Setting ignored",
			"ok_status lists HTTP statuses; a gRPC call succeeds with status OK, and its other statuses fall in the outcome classes (docs/scenarios.md, target.grpc).")
		v.warnf(src.has("target.protocol") && len(t.Requests) == 0, "target.protocol", "Setting ignored",
			"A gRPC call always speaks HTTP/2: protocol applies to HTTP targets.")
	}
	if t.GRPC == nil || !v.present("target.grpc") {
		return
	}
	set, refl := src.has("target.grpc.descriptor_set") || src.failed["target.grpc.descriptor_set"], t.GRPC.Reflection
	v.errorf(set && refl, "target.grpc.reflection", "Both descriptor_set and reflection",
		"The message types come from a descriptor set file or from the server's reflection service, not both: drop one.")
	v.errorf(!set && !refl && src.ok("target.grpc.reflection"), "target.grpc", "Missing descriptor source",
		"A gRPC target needs its message types: descriptor_set = \"service.protoset\" (protoc --include_imports --descriptor_set_out, or buf build -o), or reflection = true to ask the server's reflection service.")
	v.warnf(calls == 0 && len(t.Requests) > 0, "target.grpc", "Setting ignored",
		"No request block has a grpc block, so no call uses the target's: drop it, or give the gRPC requests grpc { method = … }.")
}

// grpcURL checks that the URL at block.url is a gRPC one exactly when
// the block has a grpc block, and that a gRPC URL names a server only.
func (v *validator) grpcURL(block, raw string, hasGRPC bool) {
	isGRPC := IsGRPCURL(raw)
	switch {
	case hasGRPC && !isGRPC:
		v.errorf(true, block+".grpc", "gRPC call to a URL that is not gRPC",
			"The grpc block makes each attempt a gRPC call, which goes to a grpc:// (plaintext HTTP/2) or grpcs:// (TLS) URL, such as \"grpc://127.0.0.1:9090\"; %q is not one. Drop the block for an HTTP request.", v.readable(raw))
	case !hasGRPC && isGRPC:
		v.errorf(true, block+".url", "gRPC URL without a grpc block",
			"%q is a gRPC target: add a grpc block naming the method and the message, e.g. grpc { method = \"helloworld.Greeter/SayHello\"  message = jsonencode({ name = \"x\" }) }.", v.readable(raw))
	case isGRPC:
		u, err := url.Parse(raw)
		if err != nil {
			return // requestURL reported it
		}
		v.errorf(strings.Trim(u.EscapedPath(), "/") != "" || u.RawQuery != "", block+".url", "Invalid gRPC URL",
			"A gRPC URL names the server only, grpc://host:port; the method is grpc.method. %q has a path or a query.", v.readable(raw))
	}
}

// grpcCall checks one gRPC call, the block at block (the target, or a
// request block), and sets its Input from the descriptor set.
func (v *validator) grpcCall(t *Target, block string, g *GRPC) {
	p := block + ".grpc"
	src := v.d.src
	if !v.present(p) {
		return
	}
	http := "the HTTP method"
	for _, a := range []struct{ name, what string }{{"method", http}, {"body", "the HTTP body"}} {
		v.errorf(src.has(block+"."+a.name), block+"."+a.name, "HTTP setting on a gRPC call",
			"%s is %s; a gRPC call's is grpc.%s. Drop it.", a.name, a.what, map[string]string{"method": "method", "body": "message"}[a.name])
	}
	if !src.ok(p+".method") || !src.has(p+".method") {
		return
	}
	if err := grpcdesc.CheckName(g.Method); err != nil {
		v.errorf(true, p+".method", "Invalid gRPC method", "%s.", err)
		return
	}
	if v.d.grpcFiles == nil {
		return // reflection: check and the run's preflight resolve it
	}
	m, err := grpcdesc.Method(v.d.grpcFiles, g.Method)
	if err != nil {
		v.errorf(true, p+".method", "Unusable gRPC method", "%s (from %s).", err, g.DescriptorSet)
		return
	}
	g.Input = m.Input()
	if !src.ok(p + ".message") {
		return
	}
	if _, err := grpcdesc.Encode(m.Input(), vocab.Sample(g.Message, v.d.slots)); err != nil {
		path := p + ".message"
		if !src.has(path) {
			path = p
		}
		v.errorf(true, path, "Message does not fit the method", "%s: %s", g.Method, sentence(err))
	}
}

// sentence is err's text ending as a sentence does.
func sentence(err error) string {
	s := err.Error()
	if strings.HasSuffix(s, "?") || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// grpcMetadata checks a gRPC call's metadata, the headers at block: a
// name that starts with "grpc-" is gRPC's own (grpc-timeout is the
// deadline the driver sends).
func (v *validator) grpcMetadata(block string, headers map[string]string) {
	for _, name := range sortedKeys(headers) {
		hp := fmt.Sprintf("%s.headers[%s]", block, name)
		if strings.HasPrefix(block, "target.request[") && !v.d.src.has(hp) {
			hp = fmt.Sprintf("target.headers[%s]", name)
		}
		v.errorf(strings.HasPrefix(strings.ToLower(name), "grpc-"), hp, "Reserved gRPC metadata",
			"Metadata named grpc-… is gRPC's own (the driver sends grpc-timeout from the client's timeout): %q cannot be set. Drop it.", name)
	}
}
