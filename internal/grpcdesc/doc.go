// Package grpcdesc finds a gRPC method's message types for a scenario's
// gRPC target: from a descriptor set file (protoc --descriptor_set_out,
// buf build -o) or from the server's reflection service
// (grpc.reflection.v1 or v1alpha), and checks a request message against
// them by encoding it once. The scenario reads a descriptor set when it is read;
// check and a run's preflight (and each agent) fetch them by reflection.
package grpcdesc
