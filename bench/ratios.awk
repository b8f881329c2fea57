# ratios.awk reads `go test -bench . -benchmem` output (any -count) and
# prints dstsafe's ratios to its peers with the targets of issue 2:
#   Next:    dstsafe <= 0.10 x robfig/cron v3, 0 allocs/op
#   Resolve: Lookup and Resolve <= 2.0 x time.Date, 0 allocs/op
# For each benchmark it keeps the best (lowest) of the runs. Times are
# cpu-ns/op (CPU time of the benchmark's thread, see cpu_test.go) where the
# platform reports it, else wall ns/op; the target is judged on the CPU
# ratio, and the wall-time ratio is shown beside it.
# POSIX awk (mawk, gawk, busybox). Usage: awk -f ratios.awk bench.out

/^Benchmark/ {
	name = $1
	sub(/-[0-9]+$/, "", name)          # GOMAXPROCS suffix
	ns = ""; cpu = ""; allocs = ""
	for (i = 2; i <= NF; i++) {
		if ($i == "ns/op") ns = $(i - 1) + 0
		if ($i == "cpu-ns/op") cpu = $(i - 1) + 0
		if ($i == "allocs/op") allocs = $(i - 1) + 0
	}
	if (ns == "") next
	if (cpu == "") cpu = ns
	n = split(name, part, "/")
	lib = part[n]
	key = part[2]
	for (i = 3; i < n; i++) key = key "/" part[i]
	group = part[1]; sub(/^Benchmark/, "", group)
	id = group SUBSEP key
	if (!(id in seen)) { seen[id] = 1; order[++nkeys] = id }
	cell = id SUBSEP lib
	if (!(cell in wall) || ns < wall[cell]) wall[cell] = ns
	if (!(cell in cpuns) || cpu < cpuns[cell]) cpuns[cell] = cpu
	if (!(cell in allocsMax) || allocs > allocsMax[cell]) allocsMax[cell] = allocs
}

function has(id, lib) { return (id SUBSEP lib) in cpuns }
function c(id, lib) { return cpuns[id SUBSEP lib] }
function w(id, lib) { return wall[id SUBSEP lib] }
function a(id, lib) { return allocsMax[id SUBSEP lib] }

END {
	met = 0; missed = 0; pending = 0
	printf "\n== Next: dstsafe vs robfig/cron v3 and gocron v2 (best of the runs, CPU ns/op)\n"
	printf "   target: dstsafe <= 0.10 x robfig, 0 allocs/op\n"
	printf "%-32s %8s %8s %8s %9s %9s %9s %6s  %s\n", "spec/start", "dstsafe", "robfig", "gocron",
		"ds/robfig", "(wall)", "ds/gocron", "allocs", "target"
	for (k = 1; k <= nkeys; k++) {
		id = order[k]; split(id, g, SUBSEP)
		if (g[1] != "Next") continue
		if (!has(id, "dstsafe") || !has(id, "robfig")) {
			printf "%-32s (dstsafe or robfig result missing)\n", g[2]; pending++; continue
		}
		r = c(id, "dstsafe") / c(id, "robfig")
		rw = w(id, "dstsafe") / w(id, "robfig")
		gc = has(id, "gocron") ? sprintf("%8.0f", c(id, "gocron")) : sprintf("%8s", "-")
		rg = has(id, "gocron") ? sprintf("%9.3f", c(id, "dstsafe") / c(id, "gocron")) : sprintf("%9s", "-")
		ok = (r <= 0.10 && a(id, "dstsafe") == 0)
		if (ok) met++; else missed++
		printf "%-32s %8.0f %8.0f %s %9.3f %9.3f %s %6d  %s\n", g[2], c(id, "dstsafe"), c(id, "robfig"),
			gc, r, rw, rg, a(id, "dstsafe"), ok ? "met" : sprintf("MISSED (%.1fx the 0.10 budget)", r / 0.10)
	}
	printf "\n== Resolve: dstsafe.Lookup and Resolve vs time.Date, America/Chicago (best, CPU ns/op)\n"
	printf "   target: <= 2.0 x time.Date, 0 allocs/op\n"
	printf "%-12s %9s %8s %6s %6s %6s %8s %6s %6s %6s  %s\n", "wall", "time.Date", "Lookup", "ratio", "(wall)",
		"allocs", "Resolve", "ratio", "(wall)", "allocs", "target"
	for (k = 1; k <= nkeys; k++) {
		id = order[k]; split(id, g, SUBSEP)
		if (g[1] != "Resolve") continue
		if (!has(id, "time.Date") || !has(id, "Lookup") || !has(id, "Resolve")) {
			printf "%-12s (a result is missing)\n", g[2]; pending++; continue
		}
		rl = c(id, "Lookup") / c(id, "time.Date"); rlw = w(id, "Lookup") / w(id, "time.Date")
		rr = c(id, "Resolve") / c(id, "time.Date"); rrw = w(id, "Resolve") / w(id, "time.Date")
		ok = (rl <= 2.0 && rr <= 2.0 && a(id, "Lookup") == 0 && a(id, "Resolve") == 0)
		if (ok) met++; else missed++
		printf "%-12s %9.1f %8.1f %6.2f %6.2f %6d %8.1f %6.2f %6.2f %6d  %s\n", g[2], c(id, "time.Date"),
			c(id, "Lookup"), rl, rlw, a(id, "Lookup"), c(id, "Resolve"), rr, rrw, a(id, "Resolve"),
			ok ? "met" : "MISSED"
	}
	printf "\n== RRule: dstsafe (*RRule).Next, and Excluding, vs rrule-go After (best, CPU ns/op)\n"
	printf "   target: dstsafe < 1000 ns, 0 allocs/op\n"
	printf "%-44s %8s %9s %9s %6s  %s\n", "rule/start", "dstsafe", "rrule-go", "ratio", "allocs", "target"
	for (k = 1; k <= nkeys; k++) {
		id = order[k]; split(id, g, SUBSEP)
		if (g[1] != "RRuleNext" || !has(id, "dstsafe")) continue
		peer = has(id, "rrule-go") ? sprintf("%9.0f %9.3f", c(id, "rrule-go"), c(id, "dstsafe") / c(id, "rrule-go")) : sprintf("%9s %9s", "-", "-")
		ok = (c(id, "dstsafe") < 1000 && a(id, "dstsafe") == 0)
		if (ok) met++; else missed++
		printf "%-44s %8.0f %s %6d  %s\n", g[2], c(id, "dstsafe"), peer, a(id, "dstsafe"), ok ? "met" : "MISSED"
	}
	printf "\ntargets: %d met, %d missed, %d without results\n", met, missed, pending
}
