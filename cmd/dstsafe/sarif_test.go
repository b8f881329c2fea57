package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles the OASIS SARIF 2.1.0 schema (testdata/sarif).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, out []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	return s.Validate(inst)
}

// Every --format sarif golden case validates against the SARIF 2.1.0
// schema, with findings and without; a log the schema must reject
// (a result level SARIF does not have, a missing message) is rejected, so
// the validation can fail.
func TestSARIFValidates(t *testing.T) {
	s := sarifSchema(t)
	n := 0
	for _, tc := range goldenCases {
		if !strings.Contains(strings.Join(tc.args, " "), "--format sarif") || tc.code == exitUsage {
			continue
		}
		n++
		t.Run(tc.name, func(t *testing.T) {
			stdout, _, _ := runCLI(tc.args...)
			if err := validate(t, s, []byte(stdout)); err != nil {
				t.Fatalf("SARIF does not validate: %v", err)
			}
			var log sarifLog
			if err := json.Unmarshal([]byte(stdout), &log); err != nil {
				t.Fatal(err)
			}
			if len(log.Runs) != 1 {
				t.Fatalf("%d runs, want 1", len(log.Runs))
			}
			for _, r := range log.Runs[0].Results {
				if rules := log.Runs[0].Tool.Driver.Rules; r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID {
					t.Errorf("result %q points at rule %d", r.RuleID, r.RuleIndex)
				}
			}
		})
	}
	if n < 2 {
		t.Fatalf("%d SARIF golden cases, want at least 2", n)
	}
	stdout, _, _ := runCLI("check", "testdata/check/deploy", "--from", "2024-06-01T00:00:00Z", "--format", "sarif")
	for _, bad := range []struct{ from, to string }{
		{`"level": "note"`, `"level": "fatal"`},
		{`"message": {`, `"msg": {`},
		{`"version": "2.1.0"`, `"version": "2.0"`},
	} {
		mutated := strings.Replace(stdout, bad.from, bad.to, 1)
		if mutated == stdout {
			t.Fatalf("mutation %q not applied", bad.from)
		}
		if err := validate(t, s, []byte(mutated)); err == nil {
			t.Errorf("schema accepted a log with %s", bad.to)
		}
	}
}
