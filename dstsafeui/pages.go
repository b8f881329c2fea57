package dstsafeui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/dstsafe/dstsafe"
)

// page is what every template gets.
type page struct {
	Title   string
	Ledger  string
	Now     string
	Actions bool
	CSRF    string
	Flash   string
	Error   string
	Body    any
}

func (u *ui) funcs() template.FuncMap {
	return template.FuncMap{
		"utc":    utc,
		"zoned":  zoned,
		"period": periodHref,
		"jobURL": func(job string) string { return "job?" + url.Values{"name": {job}}.Encode() },
		"auditURL": func(job string) string {
			return "audit?" + url.Values{"job": {job}}.Encode()
		},
	}
}

// render executes the template name into a buffer first, so that a
// failure mid-page is a 500 and not half a page.
func (u *ui) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.Ledger = u.redact(u.opts.LedgerName)
	p.Now = utc(u.opts.Clock.Now())
	p.Actions = u.opts.AllowActions
	if p.Actions {
		p.CSRF = u.csrfToken(u.session(w, r))
	}
	p.Flash = u.redact(r.URL.Query().Get("done"))
	p.Error = u.redact(p.Error)
	var buf bytes.Buffer
	if v, ok := p.Body.(jobView); ok {
		buf.Grow(16<<10 + 320*v.Periods) // no regrowth of a 10,000-period page
	}
	if err := u.pages.ExecuteTemplate(&buf, name, p); err != nil {
		u.opts.Logger.Error("dstsafe ui template", "template", name, "err", err)
		http.Error(w, "500 internal error: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail renders the error page; err's text is escaped and redacted.
func (u *ui) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	u.opts.Logger.Warn("dstsafe ui error", "path", r.URL.Path, "err", u.redact(err.Error()))
	u.render(w, r, status, "error", page{Title: http.StatusText(status), Error: err.Error()})
}

// jobs lists the ledger's jobs, internal bookkeeping keys left out.
func (u *ui) jobs(ctx context.Context) ([]string, error) {
	all, err := u.l.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, internalJob), nil
}

// jobRow is a line of the jobs page.
type jobRow struct {
	Name, Spec, Zone   string
	Known              bool // the schedule is known
	NextLocal, NextUTC string
	LastKey, LastState string
	Pause              dstsafe.Pause
	AtRisk, Missing    int
	// Counted is false when the window holds more periods than a page
	// lays out: the counts are not shown.
	Counted bool
}

func (u *ui) jobsPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	names, err := u.jobs(ctx)
	if err != nil {
		u.fail(w, r, http.StatusBadGateway, err)
		return
	}
	now := u.opts.Clock.Now()
	from := now.Add(-u.opts.Window)
	var rows []jobRow
	for _, name := range names {
		row, err := u.jobSummary(ctx, name, from, now)
		if err != nil {
			u.fail(w, r, http.StatusBadGateway, err)
			return
		}
		rows = append(rows, row)
	}
	u.render(w, r, http.StatusOK, "jobs", page{Title: "Jobs", Body: struct {
		Jobs   []jobRow
		Window string
	}{rows, windowText(u.opts.Window)}})
}

func windowText(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	}
	return d.String()
}

func (u *ui) jobSummary(ctx context.Context, name string, from, now time.Time) (jobRow, error) {
	row := jobRow{Name: name}
	// The records since a day before the window, by key: enough for the
	// identity (the newest claims) and the counts.
	//dstsafevet:ignore a List bound a day before the window, not a business date
	lo, _ := keyBounds(from, now, time.UTC)
	recs, err := u.l.List(ctx, name, lo, "")
	if err != nil {
		return row, err
	}
	id, err := u.identify(ctx, name, recs)
	if err != nil {
		return row, err
	}
	if len(recs) == 0 {
		// The latest outcome may be older than the window.
		if recs, err = u.l.List(ctx, name, "", ""); err != nil {
			return row, err
		}
	}
	if n := len(recs); n > 0 {
		row.LastKey, row.LastState = recs[n-1].Period, recs[n-1].State.String()
	}
	if row.Pause, err = u.l.GetPause(ctx, name); err != nil {
		return row, err
	}
	row.Spec, row.Zone, row.Known = id.Spec, id.Zone(), id.Cron != nil
	if id.Cron != nil {
		if next, ok := id.Cron.NextOccurrence(now); ok {
			row.NextLocal, row.NextUTC = zoned(next.At, id.Loc), utc(next.At)
		}
		ps, ok := classify(id.Cron, id.Loc, recs, from, now, now, maxPagePeriods)
		c := countStates(ps)
		row.AtRisk, row.Missing, row.Counted = c.AtRisk(), c.Missing(), ok
	} else {
		ps, _ := classify(nil, id.Loc, recs, from, now, now, maxPagePeriods)
		row.AtRisk, row.Counted = countStates(ps).AtRisk(), true
	}
	return row, nil
}

// dateRange reads the from and to query parameters (civil dates in loc,
// to excluded), defaulting to the two weeks up to tomorrow.
func dateRange(r *http.Request, loc *time.Location, now time.Time) (dstsafe.Date, dstsafe.Date, error) {
	//dstsafevet:ignore the page's default range ends after today, not a business date
	to := dstsafe.DateOf(now, loc).AddDays(2)
	from := to.AddDays(-14)
	var err error
	if s := r.URL.Query().Get("from"); s != "" {
		if from, err = dstsafe.ParseDate(s); err != nil {
			return from, to, fmt.Errorf("bad from %q: want a date, 2024-11-03", s)
		}
	}
	if s := r.URL.Query().Get("to"); s != "" {
		if to, err = dstsafe.ParseDate(s); err != nil {
			return from, to, fmt.Errorf("bad to %q: want a date, 2024-11-03", s)
		}
	}
	if !from.Before(to) {
		return from, to, fmt.Errorf("from %s is not before to %s", from, to)
	}
	if to.Compare(from.AddDays(3660)) > 0 {
		return from, to, fmt.Errorf("from %s to %s is more than ten years: show a shorter range", from, to)
	}
	return from, to, nil
}

// maxPagePeriods bounds the periods one page lays out, and those the
// jobs page counts per job; maxAuditPeriods those an audit lists, as
// `dstsafe ledger audit` does (a year of a per-minute job is 527,040).
const (
	maxPagePeriods  = 100_000
	maxAuditPeriods = 1_000_000
)

// jobView is the job page.
type jobView struct {
	Job      jobIdentity
	Pause    dstsafe.Pause
	From, To string
	Prev     string
	Next     string
	Days     []dayRow
	Counts   []stateCount
	Periods  int
}

type stateCount struct {
	State string
	N     int
}

var stateOrder = []string{"succeeded", "failed", "abandoned", "running", "skipped", stateMissing, stateUpcoming}

func (u *ui) jobPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.URL.Query().Get("name")
	if !u.knownJob(w, r, name) {
		return
	}
	now := u.opts.Clock.Now()
	id, fromD, toD, recs, status, err := u.window(ctx, r, name, now)
	if err != nil {
		u.fail(w, r, status, err)
		return
	}
	from, to := fromD.Start(id.Loc), toD.Start(id.Loc)
	ps, ok := classify(id.Cron, id.Loc, recs, from, to, now, maxPagePeriods)
	if !ok {
		u.fail(w, r, http.StatusBadRequest, fmt.Errorf("more than %d periods from %s to %s: show a shorter range", maxPagePeriods, fromD, toD))
		return
	}
	pause, err := u.l.GetPause(ctx, name)
	if err != nil {
		u.fail(w, r, http.StatusBadGateway, err)
		return
	}
	c := countStates(ps)
	v := jobView{Job: id, Pause: pause, From: fromD.String(), To: toD.String(), Periods: len(ps),
		Days: timeline(ps, id.Loc, id.Cron, name, fromD, toD)}
	span := int(toDays(toD) - toDays(fromD))
	v.Prev = "job?" + url.Values{"name": {name}, "from": {fromD.AddDays(-span).String()}, "to": {fromD.String()}}.Encode()
	v.Next = "job?" + url.Values{"name": {name}, "from": {toD.String()}, "to": {toD.AddDays(span).String()}}.Encode()
	for _, st := range stateOrder {
		if c[st] > 0 {
			v.Counts = append(v.Counts, stateCount{st, c[st]})
		}
	}
	u.render(w, r, http.StatusOK, "job", page{Title: name, Body: v})
}

// toDays counts days from a fixed epoch, for spans between dates.
func toDays(d dstsafe.Date) int64 {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// knownJob answers 404 for a job the ledger does not know.
func (u *ui) knownJob(w http.ResponseWriter, r *http.Request, name string) bool {
	names, err := u.l.Jobs(r.Context())
	if err != nil {
		u.fail(w, r, http.StatusBadGateway, err)
		return false
	}
	if name == "" || !slices.Contains(names, name) {
		u.fail(w, r, http.StatusNotFound, fmt.Errorf("unknown job %q: no record or pause state for it in this ledger", name))
		return false
	}
	return true
}

// periodView is the period page.
type periodView struct {
	Job      jobIdentity
	Period   period
	Zone     string
	Readings []reading
	// CanRetry and CanSkip say which actions apply to its state.
	CanRetry, CanSkip bool
}

// reading is one instant a period's wall reading has in the zone.
type reading struct {
	Which      string // only, first, second, shifted
	Local, UTC string
	Ran        bool
}

func (u *ui) periodPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	name, key := q.Get("job"), q.Get("period")
	if !u.knownJob(w, r, name) {
		return
	}
	rec, err := u.l.Get(ctx, name, key)
	hasRec := err == nil
	if err != nil && !errors.Is(err, dstsafe.ErrNotFound) {
		u.fail(w, r, http.StatusBadGateway, err)
		return
	}
	recs := []dstsafe.Record{} // none: identify reads the job's records for its schedule
	if hasRec {
		recs = []dstsafe.Record{rec}
	}
	id, err := u.identify(ctx, name, recs)
	if err != nil {
		u.fail(w, r, http.StatusBadGateway, err)
		return
	}
	now := u.opts.Clock.Now()
	at := keyInstant(key, id.Loc)
	if at.IsZero() && hasRec {
		at = rec.StartedAt
	}
	if at.IsZero() {
		u.fail(w, r, http.StatusNotFound, fmt.Errorf("no period %q of job %q: no record, and not a wall reading or date", key, name))
		return
	}
	// The period as classify sees it: the schedule's occurrences around
	// its key's instant, matched by key.
	ps, _ := classify(id.Cron, id.Loc, recs, at.Add(-26*time.Hour), at.Add(26*time.Hour), now, maxPagePeriods)
	v := periodView{Job: id, Zone: id.Zone()}
	found := false
	for _, p := range ps {
		if p.Key == key {
			v.Period, found = p, true
			break
		}
	}
	if !found {
		if !hasRec {
			u.fail(w, r, http.StatusNotFound, fmt.Errorf("no period %q of job %q: no record, and the job's schedule has no such period", key, name))
			return
		}
		v.Period = period{Key: key, State: rec.State.String(), HasRec: true, Rec: &rec, At: at}
	}
	p := v.Period
	if p.Expected {
		res := dstsafe.Lookup(p.Occ.Wall, id.Loc)
		switch res.Kind {
		case dstsafe.Fold:
			v.Readings = []reading{
				{Which: "first", Local: zoned(res.Earlier, id.Loc), UTC: utc(res.Earlier), Ran: p.At.Equal(res.Earlier)},
				{Which: "second", Local: zoned(res.Later, id.Loc), UTC: utc(res.Later), Ran: p.At.Equal(res.Later)},
			}
		case dstsafe.Gap:
			v.Readings = []reading{{Which: "shifted (the wall reading never happens)", Local: zoned(p.At, id.Loc), UTC: utc(p.At), Ran: true}}
		default:
			v.Readings = []reading{{Which: "only", Local: zoned(p.At, id.Loc), UTC: utc(p.At), Ran: true}}
		}
	}
	switch p.State {
	case "failed", "abandoned":
		v.CanRetry, v.CanSkip = true, true
	case stateMissing, stateUpcoming:
		v.CanSkip = true
	}
	u.render(w, r, http.StatusOK, "period", page{Title: name + " " + key, Body: v})
}

// auditView is the audit page.
type auditView struct {
	Jobs     []string
	Job      jobIdentity
	Selected bool
	From, To string
	Due      int
	NotDue   int
	Rows     []period
	Counts   []stateCount
	Complete bool
}

func (u *ui) auditPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	names, err := u.jobs(ctx)
	if err != nil {
		u.fail(w, r, http.StatusBadGateway, err)
		return
	}
	v := auditView{Jobs: names}
	name := r.URL.Query().Get("job")
	if name == "" {
		u.render(w, r, http.StatusOK, "audit", page{Title: "Audit", Body: v})
		return
	}
	if !u.knownJob(w, r, name) {
		return
	}
	now := u.opts.Clock.Now()
	id, fromD, toD, recs, status, err := u.window(ctx, r, name, now)
	if err != nil {
		u.fail(w, r, status, err)
		return
	}
	v.Job, v.Selected = id, true
	v.From, v.To = fromD.String(), toD.String()
	from, to := fromD.Start(id.Loc), toD.Start(id.Loc)
	ps, ok := classify(v.Job.Cron, v.Job.Loc, recs, from, to, now, maxAuditPeriods)
	if !ok {
		u.fail(w, r, http.StatusBadRequest, fmt.Errorf("more than %d periods from %s to %s: audit a shorter range", maxAuditPeriods, fromD, toD))
		return
	}
	c := countStates(ps)
	for _, p := range ps {
		switch p.State {
		case stateUpcoming:
			v.NotDue++
			continue
		case "succeeded":
		default:
			v.Rows = append(v.Rows, p)
		}
		v.Due++
	}
	for _, st := range stateOrder {
		if c[st] > 0 {
			v.Counts = append(v.Counts, stateCount{st, c[st]})
		}
	}
	v.Complete = c.AtRisk() == 0 && c.Missing() == 0
	u.render(w, r, http.StatusOK, "audit", page{Title: "Audit " + name, Body: v})
}

// window reads what the job and audit pages show: the job's identity,
// the dates asked for (in the job's zone; by default the two weeks up to
// tomorrow) and the records of their periods. A period key is a wall
// reading or a date in the job's zone, so the records of a range of local
// dates are those whose keys sort between its dates' strings; a day of
// margin either side covers a default range computed before the zone was
// known.
func (u *ui) window(ctx context.Context, r *http.Request, name string, now time.Time) (id jobIdentity, from, to dstsafe.Date, recs []dstsafe.Record, status int, err error) {
	id = jobIdentity{Name: name, Loc: time.UTC}
	if reg, ok := u.l.(dstsafe.JobRegistry); ok {
		if id, err = identify(ctx, u.l, name, nil, reg); err != nil {
			return id, from, to, nil, http.StatusBadGateway, err
		}
	}
	if from, to, err = dateRange(r, id.Loc, now); err != nil {
		return id, from, to, nil, http.StatusBadRequest, err
	}
	recs, err = u.l.List(ctx, name, from.AddDays(-2).String(), to.AddDays(2).String())
	if err != nil {
		return id, from, to, nil, http.StatusBadGateway, err
	}
	if id.Cron == nil {
		if id, err = identify(ctx, u.l, name, recs, nil); err != nil {
			return id, from, to, nil, http.StatusBadGateway, err
		}
		if from, to, err = dateRange(r, id.Loc, now); err != nil {
			return id, from, to, nil, http.StatusBadRequest, err
		}
	}
	return id, from, to, recs, 0, nil
}
