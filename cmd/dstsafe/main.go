// Command dstsafe explains, previews and checks schedules across
// daylight-saving transitions.
//
//	dstsafe next SPEC [--from T] [--count N] [--fold P] [--gap P] [--seconds]
//	dstsafe explain SPEC [--from T] [--months N]
//	dstsafe transitions ZONE [--year Y]
//	dstsafe resolve ZONE WALL [--policy P]
//	dstsafe check PATH... [--format text|json|sarif]
//	dstsafe tzdiff --from SRC --to SRC SPEC... [--year Y] [--years N]
//	dstsafe ledger list|show|retry|skip|pause|resume JOB [PERIOD] (--sqlite PATH | --postgres DSN | --redis ADDR | --ledger URL)
//	dstsafe ledger jobs | audit --job JOB --from D --to D [--schedule SPEC] (--sqlite PATH | ...)
//	dstsafe exec --ledger URL --job NAME [--schedule SPEC] [flags] -- COMMAND [ARG...]
//	dstsafe ui --ledger URL [--listen 127.0.0.1:8080] [--allow-actions] [--token TOKEN]
//
// Every command takes --json for machine-readable output and --zoneinfo DIR
// to read zones from DIR instead of the system's tz database (the ZONEINFO
// environment variable does the same). The binary embeds a copy of the tz
// database as a last resort.
//
// Exit status: 0 success; 1 check found problems, tzdiff found changed
// fires, resolve --policy reject met a skipped or repeated wall time, or
// the ledger refused; 2 bad arguments or input. exec passes on its
// command's status and has its own (dstsafe exec --help).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	_ "time/tzdata" // last resort when the host has no tz database

	"github.com/dstsafe/dstsafe"
)

const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, time.Now))
}

// usageError is a bad argument: the message names it and says why.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// exitError carries a non-zero exit status after output was written.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

type command struct {
	name    string
	summary string
	usage   string
	run     func(c *cmdContext, args []string) error
}

// commands is the command table: a new command is one entry here (its
// usage's first line is what --help lists).
var commands []*command

func init() {
	commands = []*command{nextCmd, explainCmd, transitionsCmd, resolveCmd, checkCmd, tzdiffCmd, ledgerCmd, execCmd, uiCmd}
}

// commandNames lists the commands for an error message: "next, explain, ...".
func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// cmdContext is what every command gets: output streams, the clock, and
// the common flags.
type cmdContext struct {
	cmd      *command
	stdout   io.Writer
	stderr   io.Writer
	now      func() time.Time
	fs       *flag.FlagSet
	json     bool
	zoneinfo string
	// storeClock opens ledgers on their default clock (the store's)
	// instead of now: exec in production, where leases must be judged
	// by one clock for every claimer.
	storeClock bool
}

func run(args []string, stdout, stderr io.Writer, now func() time.Time) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			if c := lookupCmd(args[1]); c != nil {
				fmt.Fprint(stdout, c.usage)
				return exitOK
			}
		}
		if len(args) == 0 {
			fmt.Fprint(stderr, topUsage())
			return exitUsage
		}
		fmt.Fprint(stdout, topUsage())
		return exitOK
	}
	c := lookupCmd(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "dstsafe: unknown command %q; want one of %s (dstsafe --help)\n", args[0], commandNames())
		return exitUsage
	}
	ctx := &cmdContext{cmd: c, stdout: stdout, stderr: stderr, now: now}
	ctx.fs = flag.NewFlagSet("dstsafe "+c.name, flag.ContinueOnError)
	ctx.fs.SetOutput(io.Discard)
	ctx.fs.BoolVar(&ctx.json, "json", false, "")
	ctx.fs.StringVar(&ctx.zoneinfo, "zoneinfo", "", "")
	err := c.run(ctx, args[1:])
	var ue *usageError
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, c.usage)
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "dstsafe %s: %s\nRun 'dstsafe %s --help' for usage.\n", c.name, ue.msg, c.name)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "dstsafe %s: %v\n", c.name, err)
		return exitUsage
	}
}

func lookupCmd(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// parse parses flags wherever they appear among the arguments (Go's flag
// package stops at the first positional one) and returns the positional
// arguments. It applies --zoneinfo before any zone is loaded.
func (c *cmdContext) parse(args []string, minPos, maxPos int) ([]string, error) {
	var pos []string
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError(err)
		}
		rest := c.fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			pos = append(pos, rest[1:]...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if c.zoneinfo != "" {
		st, err := os.Stat(c.zoneinfo)
		if err != nil {
			return nil, usagef("bad --zoneinfo %q: %v", c.zoneinfo, errors.Unwrap(err))
		}
		_ = st
		// The time package reads ZONEINFO once, at its first zone load,
		// and nothing has loaded a zone yet.
		os.Setenv("ZONEINFO", c.zoneinfo)
	}
	if len(pos) < minPos {
		return nil, usagef("missing %s", c.argName(len(pos)))
	}
	if maxPos >= 0 && len(pos) > maxPos {
		return nil, usagef("unexpected argument %q", pos[maxPos])
	}
	return pos, nil
}

var invalidFlag = lazyRE(`^invalid (?:boolean )?value "(.*)" for flag -([\w-]+): (.*)$`)

// flagError rewords the flag package's errors to name the flag the way
// the help text does (--count) and say what is wrong.
func flagError(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return usagef("unknown flag --%s", strings.TrimPrefix(name, "-"))
	}
	if m := invalidFlag.FindStringSubmatch(msg); m != nil {
		reason := m[3]
		if reason == "parse error" {
			reason = "not a number"
			if strings.Contains(msg, "boolean") {
				reason = "want true or false"
			}
		}
		return usagef("bad --%s %q: %s", m[2], m[1], reason)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usagef("missing value for --%s", strings.TrimPrefix(name, "-"))
	}
	return usagef("%s", msg)
}

func (c *cmdContext) argName(i int) string {
	names := strings.Fields(strings.SplitN(strings.TrimPrefix(c.cmd.usage, "Usage: dstsafe "+c.cmd.name), "\n", 2)[0])
	var pos []string
	for _, n := range names {
		if !strings.HasPrefix(n, "[") {
			pos = append(pos, strings.TrimSuffix(n, "..."))
		}
	}
	if i < len(pos) {
		return pos[i]
	}
	return "argument"
}

// loadZone loads a zone named on the command line.
func loadZone(arg, name string) (*time.Location, error) {
	if name == "" {
		return nil, usagef("bad %s %q: empty zone name", arg, name)
	}
	if name == "Local" {
		return nil, usagef("bad %s %q: the machine's zone differs between hosts; name an IANA zone such as America/Chicago", arg, name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		// The library's zone errors name the closest tz names ("did you
		// mean America/Chicago?") and explain fixed offsets: borrow them.
		var pe *dstsafe.ParseError
		if !strings.ContainsAny(name, " \t\n\r") {
			if _, perr := dstsafe.ParseCron("CRON_TZ=" + name + " 0 0 * * *"); errors.As(perr, &pe) && pe.Field == "zone" {
				return nil, usagef("bad %s %q: %s", arg, name, pe.Reason)
			}
		}
		return nil, usagef("bad %s %q: not a zone in the tz database (want an IANA name such as America/Chicago)", arg, name)
	}
	return loc, nil
}

// topUsage lists every command of the table by the first line of its
// usage.
func topUsage() string {
	var b strings.Builder
	b.WriteString("dstsafe: preview, explain and check schedules across daylight-saving transitions,\nand operate the jobs in their ledgers.\n\nUsage:\n")
	for _, c := range commands {
		first, _, _ := strings.Cut(c.usage, "\n")
		b.WriteString("  " + strings.TrimPrefix(first, "Usage: ") + "\n")
	}
	b.WriteString(topUsageTail)
	return b.String()
}

const topUsageTail = `
Every command takes --json and --zoneinfo DIR; 'dstsafe help COMMAND' or
'dstsafe COMMAND --help' shows its flags and examples.

Examples:
  dstsafe next 'CRON_TZ=America/Chicago 30 1 * * *' --from 2024-11-01T00:00:00Z
  dstsafe explain 'CRON_TZ=America/Chicago 30 2 * * *'
  dstsafe transitions Europe/London --year 2025
  dstsafe resolve America/Chicago 2024-11-03T01:30 --policy reject
  dstsafe check deploy/ crontab
  dstsafe tzdiff --from go --to system 'CRON_TZ=America/Mexico_City 30 1 * * *'
  dstsafe ledger list billing --sqlite ledger.db --state failed,abandoned

Exit status: 0 success; 1 check found problems, tzdiff found changed
fires, resolve --policy reject met a skipped or repeated wall time, or
the ledger refused; 2 bad arguments or input.
`
