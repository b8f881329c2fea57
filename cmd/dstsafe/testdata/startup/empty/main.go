// Command empty is the floor of any Go program's start: the runtime and
// nothing else (BenchmarkExecOverhead).
package main

func main() {}
