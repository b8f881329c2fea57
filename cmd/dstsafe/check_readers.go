package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A checkFile is one file dstsafe check reads: named on the command line
// or found in a directory walk.
type checkFile struct {
	path  string
	data  []byte
	named bool
}

// A reader reads one family of deployment files. The first reader whose
// match accepts a file's name reads it; a reader that meets something it
// cannot read says so with checker.notUnderstood, and the file is then
// not counted as checked.
type reader struct {
	// format names the family in "not understood: FORMAT (reason)".
	format string
	match  func(path, base string) bool
	read   func(ck *checker, f *checkFile)
}

func suffix(ss ...string) func(path, base string) bool {
	return func(_, base string) bool {
		for _, s := range ss {
			if strings.HasSuffix(base, s) {
				return true
			}
		}
		return false
	}
}

// readers are every format dstsafe check reads, by file name (lower
// case). Order matters where names overlap: *.tf.json is Terraform JSON,
// read as JSON; a Jenkinsfile before anything else.
var readers = []reader{
	{"Dockerfile", func(_, b string) bool {
		return b == "dockerfile" || strings.HasPrefix(b, "dockerfile.") || strings.HasSuffix(b, ".dockerfile") || b == "containerfile"
	}, func(ck *checker, f *checkFile) { ck.dockerfile(f.path, string(f.data)) }},
	{"crontab", func(p, b string) bool {
		return b == "crontab" || strings.HasSuffix(b, ".crontab") || strings.HasSuffix(b, ".cron") || filepath.Base(filepath.Dir(p)) == "cron.d"
	}, func(ck *checker, f *checkFile) { ck.crontab(f.path, strings.Split(string(f.data), "\n")) }},
	{"systemd timer", suffix(".timer"), func(ck *checker, f *checkFile) { ck.timer(f.path, string(f.data)) }},
	{".env file", func(_, b string) bool {
		return b == ".env" || strings.HasSuffix(b, ".env") || strings.HasPrefix(b, ".env.")
	}, func(ck *checker, f *checkFile) { ck.envFile(f.path, string(f.data)) }},
	{"Jenkins pipeline", func(_, b string) bool {
		return b == "jenkinsfile" || strings.HasPrefix(b, "jenkinsfile.") || strings.HasSuffix(b, ".jenkinsfile") || strings.HasSuffix(b, ".groovy")
	}, func(ck *checker, f *checkFile) { ck.jenkins(f.path, string(f.data)) }},
	{"YAML", suffix(".yaml", ".yml"), func(ck *checker, f *checkFile) { ck.yamlFile(f.path, f.data) }},
	{"JSON", suffix(".json"), func(ck *checker, f *checkFile) { ck.jsonFile(f.path, f.data) }},
	{"HCL", suffix(".tf", ".hcl", ".nomad"), func(ck *checker, f *checkFile) { ck.hcl(f.path, string(f.data)) }},
	{"shell script", suffix(".sh"), func(ck *checker, f *checkFile) { ck.shell(f.path, string(f.data)) }},
	{"Python", suffix(".py"), func(ck *checker, f *checkFile) { ck.python(f.path, string(f.data)) }},
	{"Java/Kotlin", suffix(".java", ".kt"), func(ck *checker, f *checkFile) { ck.jvm(f.path, string(f.data)) }},
	{"Java properties", suffix(".properties"), func(ck *checker, f *checkFile) { ck.properties(f.path, string(f.data)) }},
	{"XML", suffix(".xml"), func(ck *checker, f *checkFile) { ck.xmlFile(f.path, string(f.data)) }},
	{"C#", suffix(".cs", ".csx"), func(ck *checker, f *checkFile) { ck.csharp(f.path, string(f.data)) }},
	{"SQL", suffix(".sql"), func(ck *checker, f *checkFile) { ck.sql(f.path, string(f.data)) }},
	{"PostgreSQL configuration", func(_, b string) bool {
		return b == "postgresql.conf" || b == "postgresql.auto.conf"
	}, func(ck *checker, f *checkFile) {}}, // read for cron.timezone only (collectSettings)
	{"TypeScript/JavaScript", suffix(".ts", ".js", ".mjs", ".cjs"), func(ck *checker, f *checkFile) { ck.cdk(f.path, string(f.data)) }},
}

// readerFor returns the reader of a file, or nil.
func readerFor(path string) *reader {
	base := strings.ToLower(filepath.Base(path))
	for i := range readers {
		if readers[i].match(path, base) {
			return &readers[i]
		}
	}
	return nil
}

// skippedSuffixes name files a directory walk never reads or reports: Go code
// (dstsafe-vet's), documentation, lock files.
var skippedSuffixes = []string{".go", ".md", ".markdown", ".rst", ".adoc", ".txt", ".html", ".htm", ".sum", ".mod", ".lock", ".svg", ".csv", ".ipynb", ".golden"}

// collectFiles lists the files to check: every file named, and in the
// directories named every file a reader reads or that names a schedule
// and a zone (reported as not understood).
func collectFiles(paths []string) ([]*checkFile, error) {
	var files []*checkFile
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, usagef("bad PATH %q: %v", p, unwrapPathErr(err))
		}
		if !st.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, usagef("bad PATH %q: %v", p, unwrapPathErr(err))
			}
			files = append(files, &checkFile{path: p, data: data, named: true})
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				switch d.Name() {
				case ".git", "vendor", "node_modules", "testdata":
					if path != p {
						return filepath.SkipDir
					}
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			lower := strings.ToLower(d.Name())
			for _, s := range skippedSuffixes {
				if strings.HasSuffix(lower, s) {
					return nil
				}
			}
			known := readerFor(path) != nil
			if !known {
				if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
					return nil
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if known || (!bytes.Contains(data, []byte{0}) && atRisk(data)) {
				files = append(files, &checkFile{path: path, data: data})
			}
			return nil
		})
		if err != nil {
			return nil, usagef("bad PATH %q: %v", p, unwrapPathErr(err))
		}
	}
	return files, nil
}

// read checks one file with its reader; a file no reader reads is not
// understood.
func (ck *checker) read(f *checkFile) {
	r := readerFor(f.path)
	switch {
	case r != nil:
		r.read(ck, f)
	case shebangShell.Match(f.data):
		// A script without .sh: deploy, bin/schedule-jobs.
		ck.shell(f.path, string(f.data))
	case f.named && isYAMLMapping(f.data):
		// Named on the command line without a known name (a manifest
		// called "cronjob", say): YAML is what such files usually are.
		ck.yamlFile(f.path, f.data)
	case atRisk(f.data):
		ck.notUnderstood(f.path, riskLine(f.data), formatName(f.path), "no reader for this kind of file; it names a schedule and a zone")
	default:
		ck.notUnderstood(f.path, 1, formatName(f.path), "no reader for this kind of file")
	}
}

const checkNotUnderstood = "not-understood"

var shebangShell = lazyRE(`^#!\s*/\S*(?:/env\s+)?(?:ba|da|k|z)?sh\b`)

// notUnderstood reports something in a file this check cannot read: the
// file is then not counted as checked.
func (ck *checker) notUnderstood(file string, line int, format, reason string) {
	ck.unread[file] = true
	ck.add(file, max(line, 1), 0, checkNotUnderstood, levelNote, "not understood: %s (%s)", format, reason)
}

var (
	riskSchedule = lazyRE(`(?i)cron|schedule|oncalendar|timertrigger|\.at\(|every\(`)
	riskZone     = lazyRE(`\b(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|US|Canada|Mexico|Brazil|Chile)/[A-Za-z_]+|(?i)time_?zone|\bTZ=|CRON_TZ`)
	riskCron     = lazyRE(`(?:^|["'\s=(])(?:[0-9*?/,\-LW#]+|[A-Za-z]{3}(?:-[A-Za-z]{3})?)(?:\s+(?:[0-9*?/,\-LW#]+|[A-Za-z]{3}(?:-[A-Za-z]{3})?)){4,6}(?:$|["'\s)])|\b\d{1,2}:\d{2}\b|@(?:daily|weekly|monthly|yearly|midnight)`)
)

// atRisk reports whether a file names a schedule (a word such as cron or
// schedule, and a cron spec or a time of day) and a zone: a file no
// reader reads is reported as not understood when it does.
func atRisk(data []byte) bool {
	return riskSchedule.Match(data) && riskZone.Match(data) && riskCron.Match(data)
}

// riskLine is the first line of a file that names a schedule with a cron
// spec or a time of day, or 1.
func riskLine(data []byte) int {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if riskSchedule.Match(l) && riskCron.Match(l) {
			return i + 1
		}
	}
	return 1
}

// formatName names a file's format by its extension, for a file no reader
// reads.
func formatName(path string) string {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch ext {
	case "toml":
		return "TOML"
	case "ini", "cfg", "conf":
		return "configuration file (." + ext + ")"
	case "rb":
		return "Ruby"
	case "php":
		return "PHP"
	case "rs":
		return "Rust"
	case "ex", "exs":
		return "Elixir"
	case "":
		return "file " + filepath.Base(path)
	}
	return "." + ext + " file"
}

// isYAMLMapping reports whether data is YAML whose first document is a
// mapping.
func isYAMLMapping(data []byte) bool {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return false
	}
	return len(doc.Content) > 0 && doc.Content[0].Kind == yaml.MappingNode
}
