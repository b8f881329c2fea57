package dstsafevet_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

var update = flag.Bool("update", false, "rewrite testdata/src/corpus/jobs/jobs.go")

// corpusPackages are the corpus's packages under testdata/src: each file
// is split into cases by //corpus:case lines; a case with a want comment
// is a positive, one without a negative. clockutil is a helper package the
// cross-package cases import and holds no case.
var corpusPackages = []string{
	"corpus/methods", "corpus/closures", "corpus/config", "corpus/incidents",
	"corpus/crosspkg/clockutil", "corpus/crosspkg/use", "corpus/jobs",
	"corpus/zoned", "corpus/tomorrow", "corpus/windows", "corpus/helpers/billclock", "corpus/helpers/loop",
	"corpus/parsed", "corpus/dedup", "corpus/variants",
	"corpus/round3/timeutil", "corpus/round3",
}

// TestCorpus runs every analyzer over the corpus and prints, per analyzer,
// the diagnostics that match a want comment (true positives), those that
// match none (false positives) and the wants no diagnostic matched (false
// negatives), with precision and recall, and per case whether a positive
// was fully found and a negative left alone. It requires 100% precision
// and recall and at least 40 hand-written positive and 40 hand-written
// negative cases (the generated robfig/gocron jobs are counted apart).
//
//	go test -run TestCorpus -v ./dstsafevet
func TestCorpus(t *testing.T) {
	// analysistest checks the same wants and fails with the details; the
	// counts below are computed independently from the files.
	results := analysistest.Run(t, analysistest.TestData(), all, corpusPackages...)

	type diag struct {
		file     string
		line     int
		category string
		message  string
	}
	var diags []diag
	for _, r := range results {
		for _, d := range r.Diagnostics {
			p := r.Pass.Fset.Position(d.Pos)
			diags = append(diags, diag{p.Filename, p.Line, categoryOf(d.Message), d.Message})
		}
	}

	cs, err := loadCorpus(filepath.Join(analysistest.TestData(), "src"), corpusPackages)
	if err != nil {
		t.Fatal(err)
	}
	type counts struct{ tp, fp, fn int }
	per := map[string]*counts{}
	get := func(cat string) *counts {
		if per[cat] == nil {
			per[cat] = &counts{}
		}
		return per[cat]
	}
	matched := map[*want]bool{}
	caseHits := map[*corpusCase]int{} // diagnostics inside the case
	caseFP := map[*corpusCase]int{}
	for _, d := range diags {
		c := cs.caseAt(d.file, d.line)
		if c != nil {
			caseHits[c]++
		}
		var hit *want
		for _, w := range cs.wants[d.file][d.line] {
			if !matched[w] && w.re.MatchString(d.message) {
				hit = w
				break
			}
		}
		if hit != nil {
			matched[hit] = true
			get(d.category).tp++
			continue
		}
		get(d.category).fp++
		if c != nil {
			caseFP[c]++
		}
		t.Errorf("false positive %s:%d: %s", filepath.Base(d.file), d.line, d.message)
	}
	for file, lines := range cs.wants {
		for line, ws := range lines {
			for _, w := range ws {
				if !matched[w] {
					get(w.category).fn++
					t.Errorf("false negative %s:%d: no diagnostic matches %q", filepath.Base(file), line, w.re)
				}
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "corpus: %-12s %4s %4s %4s %10s %8s\n", "analyzer", "TP", "FP", "FN", "precision", "recall")
	var cats []string
	for c := range per {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	var total counts
	for _, c := range cats {
		n := per[c]
		total.tp, total.fp, total.fn = total.tp+n.tp, total.fp+n.fp, total.fn+n.fn
		fmt.Fprintf(&b, "corpus: %-12s %4d %4d %4d %9.1f%% %7.1f%%\n", c, n.tp, n.fp, n.fn, pct(n.tp, n.tp+n.fp), pct(n.tp, n.tp+n.fn))
	}
	fmt.Fprintf(&b, "corpus: %-12s %4d %4d %4d %9.1f%% %7.1f%%\n", "all", total.tp, total.fp, total.fn,
		pct(total.tp, total.tp+total.fp), pct(total.tp, total.tp+total.fn))

	var pos, neg, posFound, negClean, genNeg, genClean int
	for _, c := range cs.cases {
		switch {
		case c.positive():
			pos++
			if c.allMatched(matched) && caseFP[c] == 0 {
				posFound++
			}
		case c.generated:
			genNeg++
			if caseHits[c] == 0 {
				genClean++
			}
		default:
			neg++
			if caseHits[c] == 0 {
				negClean++
			}
		}
	}
	fmt.Fprintf(&b, "corpus: cases: %d positive (%d found exactly), %d negative (%d clean), %d generated robfig/gocron negatives (%d clean)\n",
		pos, posFound, neg, negClean, genNeg, genClean)
	t.Log("\n" + b.String())

	if total.fp != 0 || total.fn != 0 {
		t.Errorf("precision and recall must be 100%% on the corpus: %d false positives, %d false negatives", total.fp, total.fn)
	}
	if pos < 40 || neg < 40 {
		t.Errorf("corpus has %d positive and %d negative hand-written cases; want at least 40 of each", pos, neg)
	}
	if posFound != pos || negClean != neg || genClean != genNeg {
		t.Errorf("cases: %d/%d positives found, %d/%d negatives clean, %d/%d generated negatives clean", posFound, pos, negClean, neg, genClean, genNeg)
	}
}

func pct(n, d int) float64 {
	if d == 0 {
		return 100
	}
	return 100 * float64(n) / float64(d)
}

// categoryOf returns the analyzer a message comes from: its prefix.
func categoryOf(msg string) string {
	c, _, _ := strings.Cut(strings.TrimPrefix(msg, "^"), ":")
	return c
}

type want struct {
	re       *regexp.Regexp
	category string
}

type corpusCase struct {
	name       string
	file       string
	start, end int // lines, end exclusive
	wants      []*want
	generated  bool
}

func (c *corpusCase) positive() bool { return len(c.wants) > 0 }

func (c *corpusCase) allMatched(m map[*want]bool) bool {
	for _, w := range c.wants {
		if !m[w] {
			return false
		}
	}
	return true
}

type corpus struct {
	cases []*corpusCase
	wants map[string]map[int][]*want // file -> line -> wants
}

func (cs *corpus) caseAt(file string, line int) *corpusCase {
	for _, c := range cs.cases {
		if c.file == file && c.start <= line && line < c.end {
			return c
		}
	}
	return nil
}

var wantPattern = regexp.MustCompile("`([^`]*)`|\"((?:[^\"\\\\]|\\\\.)*)\"")

// loadCorpus reads the cases and want comments of the corpus files, the
// way analysistest reads wants: a "// want" comment with one or more
// quoted regular expressions, each matched by one diagnostic on its line.
func loadCorpus(src string, pkgs []string) (*corpus, error) {
	cs := &corpus{wants: map[string]map[int][]*want{}}
	fset := token.NewFileSet()
	for _, pkg := range pkgs {
		files, err := filepath.Glob(filepath.Join(src, pkg, "*.go"))
		if err != nil {
			return nil, err
		}
		for _, name := range files {
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			lines := fset.File(f.Pos()).LineCount()
			generated := strings.HasSuffix(pkg, "/jobs")
			var fileCases []*corpusCase
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					line := fset.Position(c.Slash).Line
					if caseName, ok := strings.CutPrefix(c.Text, "//corpus:case "); ok {
						if n := len(fileCases); n > 0 {
							fileCases[n-1].end = line
						}
						fileCases = append(fileCases, &corpusCase{name: strings.TrimSpace(caseName), file: fset.Position(c.Slash).Filename,
							start: line, end: lines + 1, generated: generated})
					}
					text := strings.TrimPrefix(c.Text, "//")
					rest, ok := strings.CutPrefix(strings.TrimSpace(text), "want ")
					if !ok {
						continue
					}
					for _, m := range wantPattern.FindAllStringSubmatch(rest, -1) {
						pat := m[1]
						if m[1] == "" && m[2] != "" {
							if pat, err = strconv.Unquote(`"` + m[2] + `"`); err != nil {
								return nil, err
							}
						}
						re, err := regexp.Compile(pat)
						if err != nil {
							return nil, err
						}
						w := &want{re: re, category: categoryOf(pat)}
						file := fset.Position(c.Slash).Filename
						if cs.wants[file] == nil {
							cs.wants[file] = map[int][]*want{}
						}
						cs.wants[file][line] = append(cs.wants[file][line], w)
					}
				}
			}
			for _, c := range fileCases {
				for line, ws := range cs.wants[c.file] {
					if c.start <= line && line < c.end {
						c.wants = append(c.wants, ws...)
					}
				}
			}
			cs.cases = append(cs.cases, fileCases...)
		}
	}
	return cs, nil
}

// TestCorpusJobsGenerated keeps corpus/jobs/jobs.go what genJobs writes
// (go test -run TestCorpusJobsGenerated -update rewrites it).
func TestCorpusJobsGenerated(t *testing.T) {
	got, err := genJobs()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "src", "corpus", "jobs", "jobs.go")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; go test -run TestCorpusJobsGenerated -update rewrites it", path)
	}
}

// fineJobs are robfig/cron and gocron jobs as their READMEs write them,
// made right for DST: a zone on every spec (or a UTC scheduler), fixed
// times outside their zone's transition windows, intervals of real time.
var fineJobs = []struct {
	name, lib, setup, add string
}{
	{"robfig-utc-prefix", "robfig", `c := cron.New()`, `c.AddFunc("CRON_TZ=UTC 30 7 * * *", %s)`},
	{"robfig-utc-location", "robfig", `c := cron.New(cron.WithLocation(time.UTC))`, `c.AddFunc("30 7 * * *", %s)`},
	{"robfig-chained-location", "robfig", ``, `cron.New(cron.WithLocation(time.UTC)).AddFunc("0 0 * * *", %s)`},
	{"robfig-noon-new-york", "robfig", `c := cron.New()`, `c.AddFunc("CRON_TZ=America/New_York 0 12 * * 1-5", %s)`},
	{"robfig-every", "robfig", `c := cron.New()`, `c.AddFunc("@every 10m", %s)`},
	{"robfig-periodic-chicago", "robfig", `c := cron.New()`, `c.AddFunc("CRON_TZ=America/Chicago */15 * * * *", %s)`},
	{"robfig-seconds-utc", "robfig", `c := cron.New(cron.WithSeconds(), cron.WithLocation(time.UTC))`, `c.AddFunc("0 30 7 * * *", %s)`},
	{"robfig-job-berlin", "robfig", `c := cron.New()`, `c.AddJob("CRON_TZ=Europe/Berlin 0 9 * * *", cron.FuncJob(%s))`},
	{"robfig-schedule-every", "robfig", `c := cron.New()`, `c.Schedule(cron.Every(5*time.Minute), cron.FuncJob(%s))`},
	{"gocron-utc-scheduler", "gocron", `s, err := gocron.NewScheduler(gocron.WithLocation(time.UTC))`, `s.NewJob(gocron.CronJob("30 7 * * *", false), gocron.NewTask(%s))`},
	{"gocron-utc-prefix", "gocron", `s, err := gocron.NewScheduler()`, `s.NewJob(gocron.CronJob("CRON_TZ=UTC 30 7 * * *", false), gocron.NewTask(%s))`},
	{"gocron-duration", "gocron", `s, err := gocron.NewScheduler()`, `s.NewJob(gocron.DurationJob(10*time.Minute), gocron.NewTask(%s))`},
	{"gocron-daily-utc", "gocron", `s, err := gocron.NewScheduler(gocron.WithLocation(time.UTC))`, `s.NewJob(gocron.DailyJob(1, gocron.NewAtTimes(gocron.NewAtTime(7, 30, 0))), gocron.NewTask(%s))`},
	{"gocron-periodic-london", "gocron", `s, err := gocron.NewScheduler()`, `s.NewJob(gocron.CronJob("CRON_TZ=Europe/London */5 * * * *", false), gocron.NewTask(%s))`},
	{"gocron-seconds-utc", "gocron", `s, err := gocron.NewScheduler()`, `s.NewJob(gocron.CronJob("CRON_TZ=UTC 0 30 7 * * *", true), gocron.NewTask(%s))`},
	{"gocron-named-sydney-noon", "gocron", `s, err := gocron.NewScheduler()`, `s.NewJob(gocron.CronJob("CRON_TZ=Australia/Sydney 0 12 * * *", false), gocron.NewTask(%s), gocron.WithName("report"))`},
}

// jobBodies are what the jobs run: a log line, a timed run, an interval
// check and a UTC-dated report, cycled through the jobs.
var jobBodies = []string{
	`func() { log.Printf("sync at %s", time.Now().UTC().Format(time.RFC3339)) }`,
	`func() {
		start := time.Now()
		defer func() { log.Printf("took %v", time.Since(start)) }()
	}`,
	`func() {
		if time.Since(lastSync) < time.Minute {
			return
		}
		lastSync = time.Now()
	}`,
	`func() { log.Printf("report for %s", time.Now().UTC().Format("2006-01-02")) }`,
}

// genJobs writes corpus/jobs/jobs.go: one negative case per fine job.
func genJobs() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`// Package jobs holds corpus negatives generated from robfig/cron and
// gocron jobs written as their READMEs write them, made right for DST.
// corpus_test.go writes this file (go test -run TestCorpusJobsGenerated
// -update); it carries no "generated" header on purpose, since the
// analyzers skip generated files and the point is that they read these.
package jobs

import (
	"log"
	"time"

	gocron "github.com/go-co-op/gocron/v2"
	"github.com/robfig/cron/v3"
)

var lastSync time.Time

`)
	for i, j := range fineJobs {
		add := fmt.Sprintf(j.add, jobBodies[i%len(jobBodies)])
		fn := camel(j.name)
		fmt.Fprintf(&b, "//corpus:case %s\n", j.name)
		switch j.lib {
		case "robfig":
			fmt.Fprintf(&b, "func %s() {\n", fn)
			if j.setup != "" {
				fmt.Fprintf(&b, "\t%s\n\t_, _ = %s\n\tc.Start()\n}\n\n", j.setup, add)
			} else {
				fmt.Fprintf(&b, "\t_, _ = %s\n}\n\n", add)
			}
			if strings.HasPrefix(j.add, "c.Schedule") {
				// Schedule returns one value.
				b.Truncate(bytes.LastIndex(b.Bytes(), []byte("func "+fn)))
				fmt.Fprintf(&b, "func %s() {\n\t%s\n\t_ = %s\n\tc.Start()\n}\n\n", fn, j.setup, add)
			}
		case "gocron":
			fmt.Fprintf(&b, "func %s() error {\n\t%s\n\tif err != nil {\n\t\treturn err\n\t}\n\tif _, err := %s; err != nil {\n\t\treturn err\n\t}\n\ts.Start()\n\treturn nil\n}\n\n", fn, j.setup, add)
		}
	}
	return format.Source(b.Bytes())
}

// camel turns "robfig-utc-prefix" into "RobfigUtcPrefix".
func camel(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "-") {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
