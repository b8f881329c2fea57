// Command dstsafe-vet runs the dstsafevet analyzers: wall-clock matching,
// elapsed-time run guards, time.Date in a local zone used as a schedule
// instant, and cron specs without a zone or at a fixed time inside a DST
// transition window.
//
// As a vet tool, over every package of a module:
//
//	go install github.com/dstsafe/dstsafe/cmd/dstsafe-vet
//	go vet -vettool=$(which dstsafe-vet) ./...
//
// Standalone, with -fix to apply suggested fixes (CRON_TZ=UTC):
//
//	dstsafe-vet ./...
//	dstsafe-vet -cronspec -fix ./...
//
// Test files are skipped unless -NAME.tests is set (go vet passes the
// flag through: go vet -vettool=... -wallclock.tests ./...), and generated
// files ("// Code generated ... DO NOT EDIT.") unless -NAME.generated is. A line is
// silenced with a "//dstsafevet:ignore reason" comment on it or above it.
// The exit status is 0 when clean, 1 (standalone: 3) on findings.
//
// The analyzers follow the current time through parameters, fields,
// elements, function values and results, and across packages through
// analysis facts (go vet passes them between packages). For golangci-lint
// v2, package github.com/dstsafe/dstsafe/cmd/golangci is a module plugin.
package main

import (
	// The zone rules travel with the binary, so the transition-window
	// check gives the same answer on every machine, containers included.
	_ "time/tzdata"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/dstsafe/dstsafe/cmd/dstsafevet"
)

func main() { multichecker.Main(dstsafevet.Analyzers()...) }
