package staging

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// FreePort returns a loopback TCP port nobody listens on at the time of the
// call. Another process may take it before the caller binds it: the Start
// functions that use it retry with a new port when their program reports
// "address already in use". The port is drawn below the kernel's
// ephemeral range where it can tell it: a port the kernel hands out for
// ":0" is one it also hands to outgoing connections (a Prometheus
// scraping, a driver connecting), which took such a port between the
// choice and the bind in a field test ("bind: address already in use").
func FreePort() (int, error) {
	if lo := ephemeralLow(); lo > 2048 {
		from := max(1024, lo-16384)
		for range 64 {
			port := from + rand.IntN(lo-from)
			if ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
				ln.Close()
				return port, nil
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("staging: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// net.ipv4.ip_local_port_range); 0 when it cannot be read.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return 0
	}
	lo, err := strconv.Atoi(f[0])
	if err != nil {
		return 0
	}
	return lo
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
