package dstsafe

import (
	"hash/fnv"
	"math"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// A zoneTable is the offset history of one *time.Location as a sorted list
// of periods of constant UTC offset: period i starts at instant at[i] (unix
// seconds; at[0] is math.MinInt64) and has offset off[i]. Consecutive periods
// always differ in offset: boundaries where only the abbreviation or the DST
// flag changes are merged away, since they move no wall reading.
//
// The offsets are the time package's own (Time.Zone), so an instant we
// compute always reads back as the wall reading it was computed from.
// The table is exact for instants below hi; beyond that (years past
// tableEndYear), windows are scanned on demand.
type zoneTable struct {
	loc *time.Location
	at  []int64
	off []int32
	hi  int64

	// idx[k] is the period containing instant base + k<<idxShift: a lookup
	// starts there and walks at most a few periods, instead of a binary
	// search whose branches the CPU cannot predict.
	base int64
	idx  []int32

	// trs[j] is the transition that starts period j (j >= 1), with the
	// range of wall readings it skips or repeats. Kept whole (about 200
	// bytes a transition) because copying it beats rebuilding it, with
	// its zone abbreviations, per Lookup. Their At is in trsLoc, the
	// location the table was built for; a table shared by an equal
	// location reads them with transitionAt.
	trs    []Transition
	trsLoc *time.Location

	// id identifies the offset history (a hash of at and off): the zone
	// data a schedule was computed with, in its fingerprint.
	id string
}

// idxShift sizes the buckets of zoneTable.idx: 2^23 s is about 97 days,
// less than the distance between two transitions of almost any zone.
const idxShift = 23

func newZoneTable(loc *time.Location, at []int64, off []int32, hi int64) *zoneTable {
	z := &zoneTable{loc: loc, trsLoc: loc, at: at, off: off, hi: hi}
	z.buildIndex()
	z.trs = make([]Transition, len(at))
	for j := 1; j < len(at); j++ {
		z.trs[j] = transitionAt(loc, at[j], int64(off[j-1]), int64(off[j]))
	}
	h := fnv.New64a()
	var b [12]byte
	for i := range at {
		v, o := uint64(at[i]), uint32(off[i])
		for k := range 8 {
			b[k] = byte(v >> (8 * k))
		}
		for k := range 4 {
			b[8+k] = byte(o >> (8 * k))
		}
		h.Write(b[:])
	}
	z.id = strconv.FormatUint(h.Sum64(), 16)
	return z
}

func (z *zoneTable) buildIndex() {
	if len(z.at) < 2 {
		return
	}
	z.base = z.at[1] &^ (1<<idxShift - 1)
	end := min(z.hi, z.at[len(z.at)-1]+1<<idxShift)
	n := int((end-z.base)>>idxShift) + 1
	z.idx = make([]int32, n)
	j := 0
	for k := range z.idx {
		t := z.base + int64(k)<<idxShift
		for j+1 < len(z.at) && z.at[j+1] <= t {
			j++
		}
		z.idx[k] = int32(j)
	}
}

// near counts the transitions within maxOffsetSpan of wall naive seconds
// s, the only ones that can matter to it: n is 0 (then k is the period in
// force), 1 (then at[k] is that transition) or 2 for two or more, and for
// walls past the table, where the caller must scan.
func (z *zoneTable) near(s int64) (k, n int) {
	if s+maxOffsetSpan >= z.hi {
		return 0, 2
	}
	i := z.period(s - maxOffsetSpan)
	k = i + 1
	switch {
	case k >= len(z.at) || z.at[k] > s+maxOffsetSpan:
		return i, 0
	case k+1 < len(z.at) && z.at[k+1] <= s+maxOffsetSpan:
		return k, 2
	}
	return k, 1
}

// period returns the index of the period containing instant sec, for a
// table (not a scanned window).
func (z *zoneTable) period(sec int64) int {
	if sec < z.base || len(z.idx) == 0 {
		return periodIndex(z.at, sec)
	}
	k := (sec - z.base) >> idxShift
	if k >= int64(len(z.idx)) {
		return periodIndex(z.at, sec)
	}
	j := int(z.idx[k])
	for j+1 < len(z.at) && z.at[j+1] <= sec {
		j++
	}
	return j
}

// tableEndYear is where cached tables stop. Zones past their last explicit
// transition follow a POSIX TZ rule every year; a table to 2400 keeps every
// realistic lookup in the fast path at a few KiB per zone.
const tableEndYear = 2400

var tableEnd = daysFromCivil(tableEndYear, time.January, 1) * secondsPerDay

// maxOffsetSpan bounds |UTC offset| (the largest in the tz database are the
// Local Mean Times of Manila and Alaska, about 15h56m) with room to spare: an
// instant reading as wall w lies within maxOffsetSpan of w's naive seconds.
const maxOffsetSpan = 27 * 3600

func offsetAt(loc *time.Location, sec int64) int32 {
	_, off := time.Unix(sec, 0).In(loc).Zone()
	return int32(off)
}

// scanZone lists the offset changes of loc from the period containing from
// up to the first change at or after to. It walks Time.ZoneBounds but never
// trusts it blindly: ZoneBounds may report a boundary where the offset does
// not change (merged here), and for instants late in a leap year past the
// last explicit transition its end can be at or before its argument
// (golang/go#81583): then we probe forward a day at a time and bisect.
func scanZone(loc *time.Location, from, to int64) (at []int64, off []int32, hi int64) {
	cur := from
	o := offsetAt(loc, cur)
	at = append(at, math.MinInt64)
	off = append(off, o)
	for cur < to {
		_, end := time.Unix(cur, 0).In(loc).ZoneBounds()
		if end.IsZero() {
			return at, off, math.MaxInt64 // no change ever again
		}
		e := end.Unix()
		if e <= cur {
			probe := cur + secondsPerDay
			if offsetAt(loc, probe) == o {
				cur = probe
				continue
			}
			e = firstChange(loc, cur, probe, o)
		} else if offsetAt(loc, e-1) != o {
			// The offset changed before the reported end: find where.
			e = firstChange(loc, cur, e-1, o)
		}
		if n := offsetAt(loc, e); n != o {
			at = append(at, e)
			off = append(off, n)
			o = n
		}
		cur = e
	}
	return at, off, cur
}

// firstChange returns the first instant in (lo, hi] whose offset differs
// from o, given that hi's does.
func firstChange(loc *time.Location, lo, hi int64, o int32) int64 {
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if offsetAt(loc, m) == o {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// periodIndex returns the index of the period containing instant sec.
func periodIndex(at []int64, sec int64) int {
	lo, hi := 0, len(at)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if at[m] <= sec {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

var (
	tablesMu  sync.Mutex
	tables    atomic.Pointer[map[*time.Location]*zoneTable]
	lastTable atomic.Pointer[zoneTable]
	// byName lists the tables built per zone name, so that a second
	// *time.Location with the same name and the same tz data (each
	// time.LoadLocation returns a new one) shares the first one's table.
	// Guarded by tablesMu.
	byName = map[string][]*zoneTable{}
)

// maxTables bounds the cache. Each time.LoadLocation returns a new
// *time.Location, so a program loading zones in a loop must not grow it
// without limit; past the bound the cache starts over.
const maxTables = 512

// tableFor returns the cached table of loc, building it on first use.
// Lookups of a cached zone take no lock and allocate nothing. Zones are
// interned by name and tz data: a loc equal to one already seen (same
// name, same transitions and rules, compared with reflect.DeepEqual, about
// 20 µs against some 1 ms to build a table) shares its table.
func tableFor(loc *time.Location) *zoneTable {
	if z := lastTable.Load(); z != nil && z.loc == loc {
		return z
	}
	if m := tables.Load(); m != nil {
		if z, ok := (*m)[loc]; ok {
			lastTable.Store(z)
			return z
		}
	}
	tablesMu.Lock()
	defer tablesMu.Unlock()
	old := tables.Load()
	if old != nil {
		if z, ok := (*old)[loc]; ok {
			return z
		}
	}
	name := loc.String()
	for _, z := range byName[name] {
		if reflect.DeepEqual(z.loc, loc) {
			// The same offsets, read in loc: instants computed with it are
			// in the location they were asked for.
			v := *z
			v.loc = loc
			storeTableLocked(loc, &v, old)
			return &v
		}
	}
	at, off, hi := scanZone(loc, math.MinInt64/4, tableEnd)
	z := newZoneTable(loc, at, off, hi)
	if len(byName) >= maxTables {
		byName = map[string][]*zoneTable{}
	}
	if zs := byName[name]; len(zs) < 8 {
		byName[name] = append(zs, z)
	}
	storeTableLocked(loc, z, old)
	return z
}

// storeTableLocked publishes z as loc's table; tablesMu must be held.
func storeTableLocked(loc *time.Location, z *zoneTable, old *map[*time.Location]*zoneTable) {
	m := make(map[*time.Location]*zoneTable)
	if old != nil && len(*old) < maxTables {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[loc] = z
	tables.Store(&m)
	lastTable.Store(z)
}

// loadedZones interns the zones ParseCron loads for a CRON_TZ= or TZ=
// prefix: name -> *time.Location. A zone named by many specs is read from
// the tz database once per process and all of them share it, and so its
// table; without it every spec had its own copy (some 1 ms and 3 KiB each).
var loadedZones sync.Map

// loadZoneOnce returns the interned zone name, loading it with
// time.LoadLocation the first time.
func loadZoneOnce(name string) (*time.Location, error) {
	if loc, ok := loadedZones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	got, _ := loadedZones.LoadOrStore(name, loc)
	return got.(*time.Location), nil
}

// tr returns transition j (j >= 1) of the table, in z.loc.
func (z *zoneTable) tr(j int) Transition {
	t := z.trs[j]
	if z.trsLoc != z.loc {
		t.At = t.At.In(z.loc)
	}
	return t
}

// zoneDataID identifies the tz data of loc as the Scheduler records it in a
// schedule's fingerprint: equal for equal offset histories.
func zoneDataID(loc *time.Location) string { return tableFor(loc).id }
