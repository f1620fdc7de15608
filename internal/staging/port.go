package staging

import (
	"fmt"
	"net"
	"strings"
)

// FreePort returns a loopback TCP port nobody listens on at the time of the
// call. Another process may take it before the caller binds it: the Start
// functions that use it retry with a new port when their program reports
// "address already in use".
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("staging: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// LoopbackAddr returns "127.0.0.1:port" for a port from FreePort.
func LoopbackAddr() (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("127.0.0.1:%d", port), nil
}

// checkLoopback returns an error unless hostPort is "host:port" with a
// loopback host (127.0.0.0/8, ::1 or "localhost"): everything this package
// starts talks to this machine only.
func checkLoopback(what, hostPort string) error {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return fmt.Errorf("staging: %s %q: want host:port: %w", what, hostPort, err)
	}
	if port == "" {
		return fmt.Errorf("staging: %s %q: no port", what, hostPort)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("staging: %s %q: not a loopback address", what, hostPort)
	}
	return nil
}
