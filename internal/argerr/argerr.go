// Package argerr holds dstsafe.ErrInvalidArgument, so that the packages
// package dstsafe imports (event) can wrap the same sentinel.
package argerr

import "errors"

// ErrInvalidArgument is dstsafe.ErrInvalidArgument.
var ErrInvalidArgument = errors.New("dstsafe: invalid argument")
