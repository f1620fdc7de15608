package vocab

import "strings"

// The gRPC status codes (google.golang.org/grpc/codes, numbered as the
// gRPC spec numbers them, 0 to 16) and the outcome class each falls in:
// one table, which client.retry.on's aliases and the driver's gRPC path
// both read, so a name in a scenario and a status on the wire agree.

// grpcCodes are the codes' names as a scenario writes them (lower case),
// indexed by number.
var grpcCodes = [...]string{
	0:  "ok",
	1:  "cancelled",
	2:  "unknown",
	3:  "invalid_argument",
	4:  "deadline_exceeded",
	5:  "not_found",
	6:  "already_exists",
	7:  "permission_denied",
	8:  "resource_exhausted",
	9:  "failed_precondition",
	10: "aborted",
	11: "out_of_range",
	12: "unimplemented",
	13: "internal",
	14: "unavailable",
	15: "data_loss",
	16: "unauthenticated",
}

// GRPCCodeOutcome is the outcome class of a call that ended with gRPC
// status code: OK is OutcomeOK; DEADLINE_EXCEEDED OutcomeTimeout;
// UNAVAILABLE Outcome503; RESOURCE_EXHAUSTED Outcome429; INTERNAL, UNKNOWN
// and DATA_LOSS Outcome5xx; UNAUTHENTICATED and PERMISSION_DENIED
// OutcomeAuth; every other code of the spec (CANCELLED, INVALID_ARGUMENT,
// NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE,
// UNIMPLEMENTED) Outcome4xx. A code beyond 16 is OutcomeOther.
func GRPCCodeOutcome(code uint32) Outcome {
	switch code {
	case 0:
		return OutcomeOK
	case 4:
		return OutcomeTimeout
	case 14:
		return Outcome503
	case 8:
		return Outcome429
	case 2, 13, 15:
		return Outcome5xx
	case 7, 16:
		return OutcomeAuth
	}
	if code < uint32(len(grpcCodes)) {
		return Outcome4xx
	}
	return OutcomeOther
}

// GRPCCodeName is code's name in lower case ("unavailable"), "" for a code
// beyond 16.
func GRPCCodeName(code uint32) string {
	if code < uint32(len(grpcCodes)) {
		return grpcCodes[code]
	}
	return ""
}

// GRPCStatusNames returns the names of the non-OK gRPC status codes, in
// their numeric order: the aliases client.retry.on takes.
func GRPCStatusNames() []string { return clone(grpcCodes[1:]) }

// ParseGRPCStatus returns the outcome class the non-OK gRPC status named
// s stands for (GRPCCodeOutcome), ignoring case and surrounding space
// ("UNAVAILABLE", "unavailable": Outcome503); ok is false for any other
// name, "ok" included.
func ParseGRPCStatus(s string) (o Outcome, ok bool) {
	low := strings.ToLower(strings.TrimSpace(s))
	for i, n := range grpcCodes {
		if i > 0 && n == low {
			return GRPCCodeOutcome(uint32(i)), true
		}
	}
	return OutcomeOK, false
}
