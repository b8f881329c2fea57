package main

// Every Go snippet of README.md and docs/*.md that is a test or a program
// runs here, not only compiles (TestDocSnippetsCompile type-checks the
// fragments, which stay fragments):
//   - a complete file with a func TestXxx or ExampleXxx is a test file:
//     its package's tests run with go test, examples checked against
//     their // Output:;
//   - a complete file with package main and func main is a program: it
//     is built and run as a process. One that returns by itself must exit
//     0. A service (it stops on a signal, signal.NotifyContext) must still
//     be running after serviceUp, then exit 0 within serviceStop of the
//     signal it waits for (SIGTERM when it names syscall.SIGTERM, else
//     SIGINT). A program that reads DATABASE_URL gets the test PostgreSQL
//     (DSTSAFE_TEST_POSTGRES_DSN, in a schema of its own); without one it
//     is skipped, except under CI=true.
// A failure names the Markdown file and line of the snippet: the copies
// carry //line directives, so compile errors and test traces do too.

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

const (
	// serviceUp is how long a service must stay up: past its startup
	// (the ledger reached and migrated, jobs added), which takes well
	// under a second against the local test servers.
	serviceUp = 3 * time.Second
	// serviceStop bounds its drain after the signal (the Scheduler's
	// default drain timeout is 30 s; these jobs do no work).
	serviceStop = 20 * time.Second
	// programLimit bounds a program that is not a service.
	programLimit = 60 * time.Second
)

var (
	testFunc = regexp.MustCompile(`(?m)^func (Test|Example)\w*\(`)
	mainFunc = regexp.MustCompile(`(?m)^func main\(\) \{`)
	mainPkg  = regexp.MustCompile(`(?m)^package main$`)
)

// isTest: a complete file that declares tests or examples.
func (s snippet) isTest() bool {
	return s.file == "" && strings.HasPrefix(s.code, "package ") && testFunc.MatchString(s.code)
}

// isProgram: a complete package main with a main function. The README's
// examples/quickstart/main.go block is this package's main.
func (s snippet) isProgram() bool {
	return mainPkg.MatchString(s.code) && mainFunc.MatchString(s.code)
}

// runnable returns the snippets of README.md and docs/*.md that are tests
// or programs.
func runnable(t *testing.T) (tests, programs []snippet) {
	t.Helper()
	for _, doc := range docs(t) {
		for _, s := range goSnippets(t, doc) {
			switch {
			case s.isTest():
				tests = append(tests, s)
			case s.isProgram():
				programs = append(programs, s)
			}
		}
	}
	return tests, programs
}

func TestDocSnippetsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every program and test of the docs: tens of seconds")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("needs the go command: %v", err)
	}
	tests, programs := runnable(t)
	// The pages name at least these: a guard that the classification
	// still finds what the docs hold.
	if len(tests) < 2 || len(programs) < 5 {
		t.Fatalf("found %d test snippets and %d programs in README.md and docs/*.md; want at least 2 and 5", len(tests), len(programs))
	}
	dir, err := os.MkdirTemp(".", "snippets-run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin, err := filepath.Abs(filepath.Join(dir, "bin"))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range tests {
		s := s
		pkg := fmt.Sprintf("t%03d", i)
		path := writeSnippet(t, dir, pkg, "snippet_test.go", s.source(pkg))
		t.Run(fmt.Sprintf("%s:%d", filepath.Base(s.doc), s.line), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), programLimit+30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-timeout", programLimit.String(), "./"+path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s:%d: the snippet's tests fail (go test: %v):\n%s", s.doc, s.line, err, out)
			}
		})
	}
	for i, s := range programs {
		s := s
		t.Run(fmt.Sprintf("%s:%d", filepath.Base(s.doc), s.line), func(t *testing.T) {
			pkgPath := "."
			if s.file == "" {
				pkg := fmt.Sprintf("p%03d", i)
				src := s.source(pkg)
				src = strings.Replace(src, "package "+pkg+"\n", "package main\n", 1)
				pkgPath = "./" + writeSnippet(t, dir, pkg, "main.go", src)
			}
			exe := filepath.Join(bin, fmt.Sprintf("p%03d", i))
			ctx, cancel := context.WithTimeout(context.Background(), programLimit+30*time.Second)
			defer cancel()
			if out, err := exec.CommandContext(ctx, "go", "build", "-o", exe, pkgPath).CombinedOutput(); err != nil {
				t.Fatalf("%s:%d: the program does not build: %v\n%s", s.doc, s.line, err, out)
			}
			runProgram(t, s, exe)
		})
	}
}

func writeSnippet(t *testing.T, dir, pkg, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, pkg)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runProgram runs the built program exe of snippet s as the docs say it
// runs, within bounds, and fails naming the snippet with its output.
func runProgram(t *testing.T, s snippet, exe string) {
	t.Helper()
	where := fmt.Sprintf("%s:%d", s.doc, s.line)
	env := os.Environ()
	if strings.Contains(s.code, `"DATABASE_URL"`) {
		env = append(env, "DATABASE_URL="+programDSN(t))
	}
	var out bytes.Buffer
	cmd := exec.Command(exe)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &out, &out
	cmd.Dir = t.TempDir() // what it writes (the quickstart's SQLite file) goes there
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: start: %v", where, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	kill := func(why string) {
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s: %s; killed. Output:\n%s", where, why, out.String())
	}
	if !strings.Contains(s.code, "signal.NotifyContext") {
		limit := time.NewTimer(programLimit)
		defer limit.Stop()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: the program failed: %v. Output:\n%s", where, err, out.String())
			}
		case <-limit.C:
			kill(fmt.Sprintf("still running after %v", programLimit))
		}
		return
	}
	up := time.NewTimer(serviceUp)
	defer up.Stop()
	select {
	case err := <-done:
		t.Fatalf("%s: the service stopped by itself within %v (exit: %v). Output:\n%s", where, serviceUp, err, out.String())
	case <-up.C:
	}
	sig := os.Interrupt
	if strings.Contains(s.code, "syscall.SIGTERM") {
		sig = syscall.SIGTERM
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%s: signal: %v", where, err)
	}
	stop := time.NewTimer(serviceStop)
	defer stop.Stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: the service did not exit cleanly on %v: %v. Output:\n%s", where, sig, err, out.String())
		}
	case <-stop.C:
		kill(fmt.Sprintf("still running %v after %v", serviceStop, sig))
	}
}

// programDSN is the test PostgreSQL with a search_path of its own schema,
// created here, so a program's Migrate makes its tables apart from the
// other tests' ones.
func programDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("DSTSAFE_TEST_POSTGRES_DSN")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DSTSAFE_TEST_POSTGRES_DSN is not set (CI=true: a test that needs it must not skip); run it through scripts/test")
		}
		t.Skip("DSTSAFE_TEST_POSTGRES_DSN is not set; run through scripts/test, which starts the servers, or set it yourself")
	}
	const schema = "dstsafe_docsnippets"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema); err != nil {
		var exists interface{ SQLState() string }
		if !errors.As(err, &exists) || exists.SQLState() != "23505" { // two creators at once
			t.Fatalf("create schema %s: %v", schema, err)
		}
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("DSTSAFE_TEST_POSTGRES_DSN: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
