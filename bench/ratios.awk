# ratios.awk reads `go test -bench . -benchmem` output (any -count) and
# prints dstsafe's ratios to its peers, best (lowest) ns/op of the runs,
# with the targets of issue 2:
#   Next:    dstsafe <= 0.10 x robfig/cron v3 ns/op, 0 allocs/op
#   Resolve: Lookup and Resolve <= 2.0 x time.Date ns/op, 0 allocs/op
# POSIX awk (mawk, gawk, busybox). Usage: awk -f ratios.awk bench.txt

/^Benchmark/ {
	name = $1
	sub(/-[0-9]+$/, "", name)          # GOMAXPROCS suffix
	ns = ""; allocs = ""
	for (i = 2; i <= NF; i++) {
		if ($i == "ns/op") ns = $(i - 1) + 0
		if ($i == "allocs/op") allocs = $(i - 1) + 0
	}
	if (ns == "") next
	n = split(name, part, "/")
	lib = part[n]
	key = part[2]
	for (i = 3; i < n; i++) key = key "/" part[i]
	group = part[1]; sub(/^Benchmark/, "", group)
	id = group SUBSEP key
	if (!(id in seen)) { seen[id] = 1; order[++nkeys] = id }
	cell = id SUBSEP lib
	if (!(cell in best) || ns < best[cell]) best[cell] = ns
	if (!(cell in worstAllocs) || allocs > worstAllocs[cell]) worstAllocs[cell] = allocs
	runs[cell]++
}

function has(id, lib) { return (id SUBSEP lib) in best }
function v(id, lib) { return best[id SUBSEP lib] }
function a(id, lib) { return worstAllocs[id SUBSEP lib] }

END {
	met = 0; missed = 0; pending = 0
	printf "\n== Next: dstsafe vs robfig/cron v3 and gocron v2 (best ns/op of the runs)\n"
	printf "   target: dstsafe <= 0.10 x robfig, 0 allocs/op\n"
	printf "%-36s %10s %10s %10s %10s %10s %7s  %s\n", "spec/start", "dstsafe", "robfig", "gocron", "ds/robfig", "ds/gocron", "allocs", "target"
	for (k = 1; k <= nkeys; k++) {
		id = order[k]; split(id, g, SUBSEP)
		if (g[1] != "Next") continue
		if (!has(id, "dstsafe") || !has(id, "robfig")) {
			printf "%-36s %10s\n", g[2], "(dstsafe or robfig missing)"; pending++; continue
		}
		r = v(id, "dstsafe") / v(id, "robfig")
		rg = has(id, "gocron") ? sprintf("%10.3f", v(id, "dstsafe") / v(id, "gocron")) : sprintf("%10s", "-")
		ok = (r <= 0.10 && a(id, "dstsafe") == 0)
		if (ok) met++; else missed++
		printf "%-36s %10.1f %10.1f %10s %10.3f %s %7d  %s\n", g[2], v(id, "dstsafe"), v(id, "robfig"),
			has(id, "gocron") ? sprintf("%.1f", v(id, "gocron")) : "-", r, rg, a(id, "dstsafe"),
			ok ? "met" : sprintf("MISSED (%.1fx the 0.10 budget)", r / 0.10)
	}
	printf "\n== Resolve: dstsafe.Lookup / dstsafe.Resolve vs time.Date, America/Chicago (best ns/op)\n"
	printf "   target: <= 2.0 x time.Date, 0 allocs/op\n"
	printf "%-14s %10s %10s %7s %7s %10s %7s %7s  %s\n", "wall", "time.Date", "Lookup", "ratio", "allocs", "Resolve", "ratio", "allocs", "target"
	for (k = 1; k <= nkeys; k++) {
		id = order[k]; split(id, g, SUBSEP)
		if (g[1] != "Resolve") continue
		if (!has(id, "time.Date") || !has(id, "Lookup") || !has(id, "Resolve")) {
			printf "%-14s %10s\n", g[2], "(a result is missing)"; pending++; continue
		}
		rl = v(id, "Lookup") / v(id, "time.Date")
		rr = v(id, "Resolve") / v(id, "time.Date")
		ok = (rl <= 2.0 && rr <= 2.0 && a(id, "Lookup") == 0 && a(id, "Resolve") == 0)
		if (ok) met++; else missed++
		printf "%-14s %10.1f %10.1f %7.2f %7d %10.1f %7.2f %7d  %s\n", g[2], v(id, "time.Date"),
			v(id, "Lookup"), rl, a(id, "Lookup"), v(id, "Resolve"), rr, a(id, "Resolve"), ok ? "met" : "MISSED"
	}
	printf "\ntargets: %d met, %d missed, %d without results\n", met, missed, pending
}
