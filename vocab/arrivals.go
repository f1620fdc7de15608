package vocab

// Arrivals is the arrival process of first attempts within the rate
// schedule (a scenario's client.arrivals).
type Arrivals uint8

const (
	// Poisson is a non-homogeneous Poisson process whose intensity is the
	// stage rate: at a constant rate, inter-arrival times are exponential.
	Poisson Arrivals = iota
	// Uniform spaces arrivals evenly in the cumulative rate: the n-th first
	// attempt where the expected count reaches n − 1.
	Uniform
)

// DefaultArrivals is the arrival process when none is named.
const DefaultArrivals = Poisson

var arrivalsNames = []string{"poisson", "uniform"}

// String returns "poisson" or "uniform".
func (a Arrivals) String() string { return name("arrivals", arrivalsNames, int(a)) }

// ParseArrivals parses "poisson" or "uniform"; empty means DefaultArrivals.
func ParseArrivals(s string) (Arrivals, error) {
	i, err := parse("arrivals", arrivalsNames, s, true)
	return Arrivals(i), err
}

// ArrivalsNames returns the names of the arrival processes, in order.
func ArrivalsNames() []string { return clone(arrivalsNames) }
