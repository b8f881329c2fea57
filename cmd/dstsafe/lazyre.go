package main

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on first use. The check
// command's patterns are package variables; compiled at init they cost
// every start of the binary, dstsafe exec's included, about 2.8 ms
// (GODEBUG=inittrace=1: main's init, 526 KB in 3,968 allocations), for a
// command that never uses them.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// lazyPatterns lists every lazyRegexp, for the test that compiles them
// all (a typo would otherwise panic at first use, not at start).
var lazyPatterns []*lazyRegexp

// lazyRE returns a lazyRegexp of src; it panics at first use if src does
// not compile, as regexp.MustCompile would at init.
func lazyRE(src string) *lazyRegexp {
	l := &lazyRegexp{src: src}
	lazyPatterns = append(lazyPatterns, l)
	return l
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRegexp) String() string                       { return l.src }
func (l *lazyRegexp) MatchString(s string) bool            { return l.get().MatchString(s) }
func (l *lazyRegexp) Match(b []byte) bool                  { return l.get().Match(b) }
func (l *lazyRegexp) FindString(s string) string           { return l.get().FindString(s) }
func (l *lazyRegexp) FindStringIndex(s string) []int       { return l.get().FindStringIndex(s) }
func (l *lazyRegexp) FindIndex(b []byte) []int             { return l.get().FindIndex(b) }
func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }
func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}
func (l *lazyRegexp) FindAllString(s string, n int) []string { return l.get().FindAllString(s, n) }
func (l *lazyRegexp) FindAllStringIndex(s string, n int) [][]int {
	return l.get().FindAllStringIndex(s, n)
}
func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}
func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}
func (l *lazyRegexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return l.get().ReplaceAllStringFunc(src, repl)
}
func (l *lazyRegexp) ReplaceAll(src, repl []byte) []byte { return l.get().ReplaceAll(src, repl) }
func (l *lazyRegexp) Split(s string, n int) []string     { return l.get().Split(s, n) }
func (l *lazyRegexp) SubexpIndex(name string) int        { return l.get().SubexpIndex(name) }
