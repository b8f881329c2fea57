// Package generatedflag has its only finding in a generated file, which
// the analyzers skip unless -NAME.generated is set.
package generatedflag
