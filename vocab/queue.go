package vocab

// Queue is where requests wait for a server (a scenario's service.queue).
type Queue uint8

const (
	// QueuePerPod gives each pod its own queue behind a balancer.
	QueuePerPod Queue = iota
	// QueueShared is one queue in front of every server (M/G/c).
	QueueShared
)

// DefaultQueue is the queue when none is named.
const DefaultQueue = QueuePerPod

var queueNames = []string{"per_pod", "shared"}

// String returns "per_pod" or "shared".
func (q Queue) String() string { return name("queue", queueNames, int(q)) }

// ParseQueue parses "per_pod" or "shared"; empty means DefaultQueue.
func ParseQueue(s string) (Queue, error) {
	i, err := parse("queue", queueNames, s, true)
	return Queue(i), err
}

// QueueNames returns the names of the queues, in order.
func QueueNames() []string { return clone(queueNames) }

// Discipline is the order in which a queue hands requests to its server.
type Discipline uint8

const (
	// FIFO serves the oldest request first.
	FIFO Discipline = iota
	// LIFO serves the newest request first.
	LIFO
	// AdaptiveLIFO serves FIFO while the queue drains and LIFO once it has
	// stood non-empty for a while (Facebook's "Fail at Scale").
	AdaptiveLIFO
)

// DefaultDiscipline is the queue discipline when none is named.
const DefaultDiscipline = FIFO

var disciplineNames = []string{"fifo", "lifo", "adaptive_lifo"}

// String returns "fifo", "lifo" or "adaptive_lifo".
func (d Discipline) String() string { return name("discipline", disciplineNames, int(d)) }

// ParseDiscipline parses "fifo", "lifo" or "adaptive_lifo"; empty means
// DefaultDiscipline.
func ParseDiscipline(s string) (Discipline, error) {
	i, err := parse("discipline", disciplineNames, s, true)
	return Discipline(i), err
}

// DisciplineNames returns the names of the queue disciplines, in order.
func DisciplineNames() []string { return clone(disciplineNames) }
