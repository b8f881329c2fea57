package dstsafetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// checker holds the few assertions the ledger suite needs. The suite does
// not use testify so that dstsafetest builds with nothing but the standard
// library and the module's own packages. must stops the test on failure
// (t.Fatalf), check records it and goes on (t.Errorf).
type checker struct{ fatal bool }

var (
	must  = checker{fatal: true}
	check = checker{fatal: false}
)

func (c checker) fail(t testing.TB, what string, msg []any) {
	t.Helper()
	if len(msg) > 0 {
		if f, ok := msg[0].(string); ok {
			what = fmt.Sprintf(f, msg[1:]...) + ": " + what
		}
	}
	if c.fatal {
		t.Fatal(what)
	}
	t.Error(what)
}

func (c checker) NoError(t testing.TB, err error, msg ...any) {
	t.Helper()
	if err != nil {
		c.fail(t, fmt.Sprintf("unexpected error: %v", err), msg)
	}
}

func (c checker) Error(t testing.TB, err error, msg ...any) {
	t.Helper()
	if err == nil {
		c.fail(t, "got no error", msg)
	}
}

func (c checker) ErrorIs(t testing.TB, err, target error, msg ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		c.fail(t, fmt.Sprintf("error %v is not %v", err, target), msg)
	}
}

func (c checker) ErrorAs(t testing.TB, err error, target any, msg ...any) {
	t.Helper()
	if !errors.As(err, target) {
		c.fail(t, fmt.Sprintf("error %v (%T) is not a %s", err, err, reflect.TypeOf(target).Elem()), msg)
	}
}

func (c checker) Equal(t testing.TB, want, got any, msg ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		c.fail(t, fmt.Sprintf("got %#v, want %#v", got, want), msg)
	}
}

func (c checker) True(t testing.TB, ok bool, msg ...any) {
	t.Helper()
	if !ok {
		c.fail(t, "condition is false", msg)
	}
}

func (c checker) NotNil(t testing.TB, v any, msg ...any) {
	t.Helper()
	if v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
		c.fail(t, "got nil", msg)
	}
}

func (c checker) Positive(t testing.TB, n int64, msg ...any) {
	t.Helper()
	if n <= 0 {
		c.fail(t, fmt.Sprintf("got %d, want > 0", n), msg)
	}
}

func (c checker) Greater(t testing.TB, a, b int64, msg ...any) {
	t.Helper()
	if a <= b {
		c.fail(t, fmt.Sprintf("got %d, want > %d", a, b), msg)
	}
}

func (c checker) Len(t testing.TB, v any, n int, msg ...any) {
	t.Helper()
	if l := reflect.ValueOf(v).Len(); l != n {
		c.fail(t, fmt.Sprintf("length %d, want %d: %v", l, n, v), msg)
	}
}

// Empty: a zero-length slice, map or string.
func (c checker) Empty(t testing.TB, v any, msg ...any) {
	t.Helper()
	if l := reflect.ValueOf(v).Len(); l != 0 {
		c.fail(t, fmt.Sprintf("got %v, want empty", v), msg)
	}
}

func (c checker) NotEmpty(t testing.TB, v any, msg ...any) {
	t.Helper()
	if l := reflect.ValueOf(v).Len(); l == 0 {
		c.fail(t, "got empty", msg)
	}
}
