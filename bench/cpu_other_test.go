//go:build !(linux || darwin || freebsd)

package bench

func threadCPU() (int64, bool) { return 0, false }
