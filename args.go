package dstsafe

// ArgError reports an argument a function refuses: a nil *time.Location
// (wrapping ErrInvalidArgument) or an enum value out of range (wrapping
// ErrInvalidArgument). Func names the function or option ("Resolve",
// "WithRunDateLocation") and Arg the parameter ("loc"). errors.Is sees the
// sentinel through it. Functions that return an error return it for such
// an argument; those that cannot (Lookup, Transitions, DateOf) panic with
// a message naming themselves, because only a programming error passes
// them a nil location.
type ArgError struct {
	Func, Arg string
	Err       error
}

func (e *ArgError) Error() string {
	return onePrefix(prefix + e.Func + ": " + e.Arg + ": " + e.Err.Error())
}

// Unwrap returns the sentinel.
func (e *ArgError) Unwrap() error { return e.Err }
