// Package bench holds side-by-side benchmarks of dstsafe against
// robfig/cron v3 and gocron v2, in one module of its own so that the peers
// never become dependencies of dstsafe itself.
//
// Run them with
//
//	cd bench && go test -bench . -benchmem
//
// or ./run.sh for a short run with a dstsafe/robfig ratio summary. The
// behaviour comparison (fires twice, skips, hangs) is in internal/behaviour
// and printed as a markdown table by ./compare.
package bench
