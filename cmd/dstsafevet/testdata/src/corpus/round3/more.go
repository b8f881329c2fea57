package round3

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	gocronv1 "github.com/go-co-op/gocron"
	"github.com/redis/go-redis/v9"
	"github.com/robfig/cron/v3"
)

func rotate()  { log.Print("rotated") }
func payouts() { log.Print("payouts sent") }

//corpus:case sao-paulo-midnight
// Brazil abolished DST in 2019: midnight in São Paulo is a plain time.

func StartSaoPaulo() *cron.Cron {
	c := cron.New()
	c.AddFunc("CRON_TZ=America/Sao_Paulo 0 0 * * *", rotate)
	c.Start()
	return c
}

//corpus:case dublin-0130
// Dublin's clocks change at 01:00 UTC: 01:30 is skipped in March and
// repeated in October (negative DST in the tz database, same wall times).

func StartDublin() *cron.Cron {
	c := cron.New()
	c.AddFunc("CRON_TZ=Europe/Dublin 30 1 * * *", payouts) // want `cronspec: "30 1 \* \* \*" in Europe/Dublin: 01:30 does not exist on 2026-03-29 .* and 01:30 occurs twice on 2026-10-25`
	c.Start()
	return c
}

//corpus:case sydney-store-close
// A store zone constant; stores close at midnight, which Sydney never
// skips or repeats.

const storeZone = "Australia/Sydney"

func NextStoreClose(now time.Time) (time.Time, error) {
	loc, err := time.LoadLocation(storeZone)
	if err != nil {
		return time.Time{}, err
	}
	l := now.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, loc), nil
}

//corpus:case sydney-stock-sync
// The stock sync at 02:30 Sydney time: skipped on the first Sunday of
// October, repeated on the first Sunday of April.

func NextStockSync(now time.Time) (time.Time, error) {
	loc, err := time.LoadLocation(storeZone)
	if err != nil {
		return time.Time{}, err
	}
	l := now.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()+1, 2, 30, 0, 0, loc), nil // want `localdate: .*02:30.*Australia/Sydney.*occurs twice on 2026-04-05`
}

//corpus:case exists-then-set
// A check, then SET with a day's TTL, keyed by the local date.

func SendReminderOnce(ctx context.Context, rdb *redis.Client, loc *time.Location, user string) error {
	today := time.Now().In(loc)
	key := fmt.Sprintf("reminder:%s:%d-%d-%d", user, today.Year(), today.Month(), today.Day())
	if n, _ := rdb.Exists(ctx, key).Result(); n > 0 {
		return nil
	}
	log.Printf("reminder for %s", user)
	return rdb.Set(ctx, key, 1, 24*time.Hour).Err() // want `localdate: a dedup key of the local date kept for 24 hours`
}

//corpus:case log-file-by-local-day
// A log file named by the local day: no expiry, no dedup.

func OpenDailyLog(dir string, loc *time.Location) (*os.File, error) {
	now := time.Now().In(loc)
	name := fmt.Sprintf("app-%d%02d%02d.log", now.Year(), now.Month(), now.Day())
	return os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
}

//corpus:case v1-local-0230
// gocron v1 on the machine's zone at 02:30.

func StartLocalV1() {
	s := gocronv1.NewScheduler(time.Local)
	s.Every(1).Day().At("02:30").Do(rotate) // want `cronspec: this job runs at 02:30 in a zone this check cannot name`
	s.StartAsync()
}

//corpus:case santiago-saturday-2330
// Santiago's April fall-back repeats 23:00-24:00 of a Saturday: a Saturday
// job at 23:30 runs twice on 2026-04-04.

func StartSantiagoSaturday() {
	loc, _ := time.LoadLocation("America/Santiago")
	s := gocronv1.NewScheduler(loc)
	s.Every(1).Saturday().At("23:30").Do(payouts) // want `cronspec: the Saturday time 23:30 in America/Santiago: 23:30 occurs twice on 2026-04-04`
	s.StartAsync()
}

//corpus:case santiago-sunday-2330
// On Sundays at 23:30 nothing happens in Santiago.

func StartSantiagoSunday() {
	loc, _ := time.LoadLocation("America/Santiago")
	s := gocronv1.NewScheduler(loc)
	s.Every(1).Weekday(time.Sunday).At("23:30").Do(payouts)
	s.StartAsync()
}

//corpus:case berlin-after-fallback
// 03:00 and 03:15 in Berlin: the October fall-back repeats 02:00-02:59,
// and the March gap ends at 03:00.

var berlinNight = []string{"15 3 * * *", "0 3 * * *", "0 12 * * *"}

func StartBerlinNight() (*cron.Cron, error) {
	c := cron.New(cron.WithLocation(berlin))
	for _, spec := range berlinNight {
		if _, err := c.AddFunc(spec, rotate); err != nil {
			return nil, err
		}
	}
	c.Start()
	return c, nil
}

//corpus:case local-map-of-structs
// Jobs by name with their spec, under the machine's zone.

type jobDef struct {
	Spec string
	Run  func()
}

var localJobs = map[string]jobDef{
	"nightly-export": {Spec: "0 1 * * *", Run: rotate}, // want `cronspec: "0 1 \* \* \*" runs at 01:00 in a zone this check cannot name`
	"heartbeat":      {Spec: "@every 1m", Run: payouts},
	"lunch-report":   {Spec: "0 12 * * 1-5", Run: payouts},
}

func StartLocalJobs() *cron.Cron {
	c := cron.New(cron.WithLocation(time.Local))
	for name, j := range localJobs {
		if _, err := c.AddFunc(j.Spec, j.Run); err != nil {
			log.Printf("job %s: %v", name, err)
		}
	}
	c.Start()
	return c
}

//corpus:case format-key-named-const
// Format("20060102") and a TTL constant named for a day.

const oneDay = 24 * time.Hour

func MarkSettled(ctx context.Context, rdb *redis.Client, loc *time.Location) (bool, error) {
	key := "settled:" + time.Now().In(loc).Format("20060102") // want `localdate: a business date`
	return rdb.SetNX(ctx, key, 1, oneDay).Result()            // want `localdate: a dedup key of the local date kept for 24 hours`
}

//corpus:case local-0200-until
// The machine's zone at 02:00, waited for with time.Until.

func WaitForBackup(ctx context.Context) {
	now := time.Now()
	at := time.Date(now.Year(), now.Month(), now.Day()+1, 2, 0, 0, 0, time.Local) // want `localdate: .*zone this check cannot name.*runs at 02:00`
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(at)):
		rotate()
	}
}

//corpus:case local-noon-until
// Noon in the machine's zone: no zone changes its clocks at noon.

func WaitForLunch(ctx context.Context) {
	now := time.Now()
	at := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.Local)
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(at)):
		payouts()
	}
}

//corpus:case date-in-a-message
// The local date shown in an error built by a printf-style wrapper: a
// message, not a key.

type reporter struct{ code int }

func (r *reporter) fail(code int, format string, args ...any) error {
	r.code = code
	return fmt.Errorf(format, args...)
}

func NothingDue(r *reporter, loc *time.Location) error {
	return r.fail(2, "nothing due on %s", time.Now().In(loc).Format("2006-01-02"))
}

//corpus:case date-in-a-variadic-key
// The same date passed to a key builder that joins its parts: a key.

func joinKey(prefix string, parts ...any) string {
	return fmt.Sprint(append([]any{prefix}, parts...)...)
}

func ExportKey(loc *time.Location) string {
	return joinKey("export", time.Now().In(loc).Format("2006-01-02")) // want `localdate: a business date`
}
