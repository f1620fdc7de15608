package grpcdesc

import (
	"fmt"
	"regexp"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Encode encodes the request message js, protojson, as a message of type
// in, to protobuf binary: what the scenario's check and the driver both
// send. An empty (or blank) js is the empty message, zero bytes, never
// nil. A field in is missing ("unknown field") is an error naming it, and
// the closest field in has.
func Encode(in protoreflect.MessageDescriptor, js string) ([]byte, error) {
	m := dynamicpb.NewMessage(in)
	if strings.TrimSpace(js) == "" {
		return []byte{}, nil
	}
	if err := protojson.Unmarshal([]byte(js), m); err != nil {
		// The line and column are the JSON text's, which the scenario
		// did not write as such (jsonencode's): left out.
		msg := jsonPosition.ReplaceAllString(clean(err), "")
		if f := unknownField.FindStringSubmatch(msg); f != nil {
			if c := closest(f[1], fieldNames(in)); c != "" {
				msg += fmt.Sprintf("; did you mean %q?", c)
			} else if names := fieldNames(in); len(names) > 0 {
				msg += fmt.Sprintf("; %s has %s", in.FullName(), listSome(jsonNames(in), 12))
			} else {
				msg += fmt.Sprintf("; %s has no field", in.FullName())
			}
		}
		return nil, fmt.Errorf("the message is no %s: %s", in.FullName(), msg)
	}
	b, err := proto.Marshal(m)
	if err == nil && b == nil {
		b = []byte{}
	}
	return b, err
}

// jsonPosition is protojson's "(line 1:21): ".
var jsonPosition = regexp.MustCompile(`^\(line \d+:\d+\): `)

// unknownField finds the field name in protojson's "unknown field" error.
var unknownField = regexp.MustCompile(`unknown field "([^"]*)"`)

// fieldNames are the names a JSON message may give in's fields: the JSON
// names and the proto names.
func fieldNames(in protoreflect.MessageDescriptor) []string {
	var out []string
	for i := 0; i < in.Fields().Len(); i++ {
		f := in.Fields().Get(i)
		out = append(out, f.JSONName())
		if string(f.Name()) != f.JSONName() {
			out = append(out, string(f.Name()))
		}
	}
	return out
}

// jsonNames are in's fields' JSON names.
func jsonNames(in protoreflect.MessageDescriptor) []string {
	var out []string
	for i := 0; i < in.Fields().Len(); i++ {
		out = append(out, in.Fields().Get(i).JSONName())
	}
	return out
}
