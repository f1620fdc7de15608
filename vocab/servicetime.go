package vocab

// ServiceTime is the law of one request's service time (a scenario's
// service.service_time).
type ServiceTime uint8

const (
	// ServiceDeterministic serves every request in exactly the mean service time.
	ServiceDeterministic ServiceTime = iota
	// ServiceExponential draws exponential service times (coefficient of
	// variation 1).
	ServiceExponential
	// ServiceLognormal draws lognormal service times with a given
	// coefficient of variation (DefaultServiceCV unless named).
	ServiceLognormal
)

// DefaultServiceTime is the service-time law when none is named.
const DefaultServiceTime = ServiceDeterministic

var serviceTimeNames = []string{"deterministic", "exponential", "lognormal"}

// String returns "deterministic", "exponential" or "lognormal".
func (s ServiceTime) String() string { return name("service_time", serviceTimeNames, int(s)) }

// ParseServiceTime parses "deterministic", "exponential" or "lognormal";
// empty means DefaultServiceTime.
func ParseServiceTime(s string) (ServiceTime, error) {
	i, err := parse("service time", serviceTimeNames, s, true)
	return ServiceTime(i), err
}

// ServiceTimeNames returns the names of the service-time laws, in order.
func ServiceTimeNames() []string { return clone(serviceTimeNames) }
