package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The CI entry point must not pass with every PostgreSQL and Redis test
// skipped: .ci/run sets CI=true, and scripts/test then refuses a run whose
// servers are missing before it runs anything. Both scripts run here for
// real, with a fake `go` first on PATH: a run that gets past the check
// calls it, and it stops the run at once (no recursion into this test).

const fakeGoCalled = "fake go called"

// scriptEnv is the environment for running the repository's scripts
// without servers: no DSTSAFE_TEST_* variables, DSTSAFE_SERVICES=0 (start
// nothing), CI unset unless ci, and a fake go first on PATH.
func scriptEnv(t *testing.T, ci bool) []string {
	t.Helper()
	bin := t.TempDir()
	fake := "#!/bin/sh\necho '" + fakeGoCalled + "' >&2\nexit 97\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "CI" || k == "PATH" || k == "DSTSAFE_SERVICES" || strings.HasPrefix(k, "DSTSAFE_TEST_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "DSTSAFE_SERVICES=0")
	if ci {
		env = append(env, "CI=true")
	}
	return env
}

// runScript runs the repository script rel with env and returns its exit
// code and combined output.
func runScript(t *testing.T, rel string, env []string) (int, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "..", "..", rel))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("running %s: %v\n%s", rel, err, out)
	return 0, ""
}

func TestCIRunFailsWithoutServers(t *testing.T) {
	code, out := runScript(t, ".ci/run", scriptEnv(t, false))
	if code != 1 || !strings.Contains(out, "CI=true but PostgreSQL or Redis is not available") {
		t.Errorf(".ci/run without servers: exit %d, want 1 with the servers named:\n%s", code, out)
	}
	if strings.Contains(out, fakeGoCalled) {
		t.Errorf(".ci/run without servers ran go before refusing:\n%s", out)
	}
}

func TestScriptsTestUnderCIFailsWithoutServers(t *testing.T) {
	code, out := runScript(t, "scripts/test", scriptEnv(t, true))
	if code != 1 || strings.Contains(out, fakeGoCalled) {
		t.Errorf("CI=true scripts/test without servers: exit %d, want 1 before any go command:\n%s", code, out)
	}
	// Without CI=true the same run goes on (and the report counts the
	// skips): the refusal above is CI's, which .ci/run switches on.
	code, out = runScript(t, "scripts/test", scriptEnv(t, false))
	if code == 0 || !strings.Contains(out, fakeGoCalled) {
		t.Errorf("scripts/test without CI and without servers: exit %d, want it to go on to go (the fake one fails it):\n%s", code, out)
	}
}
