package vocab

// Protocol is the HTTP version the driver speaks to the target (a
// scenario's target.protocol).
type Protocol uint8

const (
	// ProtocolHTTP1 is HTTP/1.1 (over TLS for https://).
	ProtocolHTTP1 Protocol = iota
	// ProtocolH2 is HTTP/2 only: h2 over TLS for https://, unencrypted
	// HTTP/2 with prior knowledge (h2c) for http://.
	ProtocolH2
)

// DefaultProtocol is the protocol when none is named.
const DefaultProtocol = ProtocolHTTP1

var protocolNames = []string{"http1", "h2"}

// String returns "http1" or "h2".
func (p Protocol) String() string { return name("protocol", protocolNames, int(p)) }

// ParseProtocol parses "http1" or "h2"; empty means DefaultProtocol.
func ParseProtocol(s string) (Protocol, error) {
	i, err := parse("protocol", protocolNames, s, true)
	return Protocol(i), err
}

// ProtocolNames returns the names of the protocols, in order.
func ProtocolNames() []string { return clone(protocolNames) }
