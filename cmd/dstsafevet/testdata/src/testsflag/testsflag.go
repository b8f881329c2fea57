// Package testsflag has its only finding in a test file, which the
// analyzers skip unless -NAME.tests is set.
package testsflag
