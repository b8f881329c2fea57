package cronspec

import (
	"time"

	"github.com/dstsafe/dstsafe"
	gocron "github.com/go-co-op/gocron/v2"
	"github.com/robfig/cron/v3"
)

const nightly = "0 3 * * *"

func specs(loc *time.Location) {
	dstsafe.ParseCron("30 1 * * *")                          // want `cronspec: without a zone prefix`
	cron.ParseStandard("CRON_TZ=America/Chicago 30 1 * * *") // want `cronspec: "30 1 \* \* \*" in America/Chicago: 01:30 occurs twice on 2026-11-01 \(01:00-02:00 repeated\), so the repeated time runs twice, an hour apart \(robfig/cron and gocron match both readings\); move it`
	cron.ParseStandard("TZ=America/Chicago 30 2 * * *")      // want `cronspec: .* 02:30 does not exist on 2026-03-08 \(02:00-03:00 skipped\), so the skipped time runs an hour late or not at all, depending on the library; move it`
	// dstsafe's own advice: its Scheduler runs a fold's time once and a
	// gap's time at the gap's end, and claims each period.
	dstsafe.ParseCron("CRON_TZ=America/Chicago 30 1 * * *")
	dstsafe.ParseCron("TZ=America/Chicago 30 2 * * *")
	dstsafe.ParseCron("CRON_TZ=America/Chicago 30 7 * * *") // outside the window
	dstsafe.ParseCron("CRON_TZ=UTC 30 7 * * *")
	dstsafe.ParseCron("CRON_TZ=America/Chicago */15 * * * *") // periodic: follows real time
	dstsafe.ParseCron("CRON_TZ=Mars/Olympus 30 1 * * *")      // want `cronspec: zone "Mars/Olympus" is rejected \(unknown zone`
	dstsafe.ParseCron("30 1 * * *", dstsafe.WithLocation(loc))
	dstsafe.ParseCron(nightly) // want `cronspec: without a zone prefix`

	c := cron.New()
	c.AddFunc(`0 0 * * *`, func() {})                        // want `cronspec: without a zone prefix`
	c.AddFunc("CRON_TZ=Europe/London 30 1 * * *", func() {}) // want `cronspec: .* in Europe/London: 01:30 does not exist on 2026-03-29 \(01:00-02:00 skipped\) and 01:30 occurs twice on 2026-10-25 \(01:00-02:00 repeated\)`
	cron.ParseStandard("CRON_TZ=UTC 0 0 * * *")
	cron.Parser{}.Parse("CRON_TZ=Australia/Lord_Howe 0 45 1 * * *") // want `cronspec: .* Australia/Lord_Howe: 01:45 occurs twice on 2026-04-05 \(01:30-02:00 repeated\), so the repeated time runs twice, 30 minutes apart`

	gocron.CronJob("CRON_TZ=America/Havana 0 0 * * *", false) // want `cronspec: .*America/Havana.*00:00`
	gocron.CronJob("CRON_TZ=America/New_York 0 12 * * *", false)

	// A robfig scheduler with a location reads zone-less specs in it.
	utc := cron.New(cron.WithLocation(time.UTC))
	utc.AddFunc("30 7 * * *", func() {})
}
