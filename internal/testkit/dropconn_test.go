package testkit_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/dstsafe/dstsafe/internal/testkit"
)

// A client that connects gets its connection closed before any byte.
func TestDroppingServer(t *testing.T) {
	addr := testkit.DroppingServer(t)
	for range 3 { // every connection, not only the first
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %s: %v", addr, err)
		}
		// A deadline so that a server that kept the connection open
		// fails the test instead of hanging it.
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := c.Read(make([]byte, 1))
		c.Close()
		if n != 0 || err != io.EOF {
			t.Fatalf("read from %s = %d, %v; want 0, EOF", addr, n, err)
		}
	}
}
