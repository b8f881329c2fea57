package testkit

import (
	"net"
	"testing"
)

// DroppingServer returns the address (host:port) of a TCP listener that
// accepts every connection and closes it at once, as a server that
// restarts or a proxy that cuts connections does. A backend's tests point
// a client at it to check that a dropped connection is a transient error,
// not dstsafe.ErrPermanent. The listener closes when t ends.
func DroppingServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("dstsafetest: listen: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed by the cleanup
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}
