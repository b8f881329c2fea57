# shellcheck shell=bash
# Sourced by scripts/test (or by hand: `source scripts/services.sh`).
#
# Starts a throwaway PostgreSQL and Redis on 127.0.0.1, on free ports, with
# their data in one `mktemp -d` directory, installing the Debian packages
# `postgresql` and `redis-server` with apt-get when their binaries are
# missing. Exports for the tests:
#
#   DSTSAFE_TEST_POSTGRES_DSN      pgx DSN of a database the tests may use
#   DSTSAFE_TEST_REDIS_ADDR        host:port of the Redis server
#   DSTSAFE_TEST_POSTGRES_CTL      a pg_ctl wrapper for the restart test
#                                  ("$DSTSAFE_TEST_POSTGRES_CTL stop -m fast")
#   DSTSAFE_TEST_POSTGRES_DATADIR  the PostgreSQL data directory
#   DSTSAFE_TEST_POSTGRES_STOPPABLE_DSN, _CTL, _DATADIR
#                                  the same for a second PostgreSQL server, for
#                                  the tests that stop and restart it
#                                  (TestPostgresRestart, TestPostgresBlip):
#                                  scripts/test runs them on it, one after the
#                                  other, beside the tests using the first
#
# Both servers are stopped by PID when the sourcing shell exits, and the
# directory is removed. PostgreSQL keeps durable commits (fsync and
# synchronous_commit on): benchmarks report durable numbers.
# Set DSTSAFE_SERVICES=0 to start nothing (use servers of your own).

if [[ "${DSTSAFE_SERVICES:-1}" != 0 ]]; then

_svc_log() { echo "services: $*" >&2; }

_svc_apt_install() {
	local sudo=()
	if [[ $(id -u) != 0 ]]; then sudo=(sudo -n); fi
	_svc_log "installing $* with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -qq </dev/null >&2
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" </dev/null >&2
}

_svc_pg_bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)
	if [[ -n "$d" && -x "$d/postgres" ]]; then echo "$d"; return; fi
	if command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then
		dirname "$(command -v pg_ctl)"
	fi
}

# A TCP port on 127.0.0.1 that nothing answers on right now.
_svc_free_port() {
	local p i
	for i in $(seq 1 200); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
	done
	_svc_log "no free port found"; return 1
}

_svc_wait_tcp() { # port seconds
	local i
	for i in $(seq 1 $(($2 * 10))); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	return 1
}

_svc_stop() {
	local pg=${_svc_pg_pid:-} pg2=${_svc_pg2_pid:-} pid
	# The restart tests may have restarted PostgreSQL: its current PID is in
	# postmaster.pid, not the one saved at start.
	if [[ -n "${_svc_pgdata:-}" && -f "$_svc_pgdata/postmaster.pid" ]]; then
		pg=$(head -n1 "$_svc_pgdata/postmaster.pid")
	fi
	if [[ -n "${_svc_pg2data:-}" && -f "$_svc_pg2data/postmaster.pid" ]]; then
		pg2=$(head -n1 "$_svc_pg2data/postmaster.pid")
	fi
	pg="$pg $pg2"
	# SIGINT is PostgreSQL's fast shutdown, SIGTERM Redis's.
	for pid in $pg; do kill -INT "$pid" 2>/dev/null || true; done
	if [[ -n "${_svc_redis_pid:-}" ]]; then kill -TERM "$_svc_redis_pid" 2>/dev/null || true; fi
	for pid in $pg ${_svc_redis_pid:-}; do
		for _ in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
	done
	if [[ -n "${_svc_dir:-}" ]]; then rm -rf "$_svc_dir"; fi
}

# _svc_pg BINDIR NAME starts a PostgreSQL server in $_svc_dir/NAME and sets
# _pg_data, _pg_pid, _pg_dsn (database dstsafe_test) and _pg_ctl.
_svc_pg() {
	local run=()
	if [[ $(id -u) == 0 ]]; then run=(runuser -u "$_svc_pg_user" --); fi
	local data="$_svc_dir/$2" rundir="$_svc_dir/$2run"
	mkdir -p "$data" "$rundir"
	if [[ $(id -u) == 0 ]]; then chown "$_svc_pg_user" "$data" "$rundir"; fi
	chmod 700 "$data"

	"${run[@]}" "$1/initdb" -D "$data" -U postgres --auth=trust \
		-E UTF8 --locale=C.UTF-8 --no-sync </dev/null >"$_svc_dir/$2-initdb.log" 2>&1 ||
		{ cat "$_svc_dir/$2-initdb.log" >&2; return 1; }

	local pgport
	pgport=$(_svc_free_port)
	cat >>"$data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $pgport
unix_socket_directories = '$rundir'
max_connections = 300
fsync = on
synchronous_commit = on
full_page_writes = on
EOF
	cat >"$_svc_dir/$2_ctl" <<EOF
#!/usr/bin/env bash
# pg_ctl for the test server, as its user: pg_ctl stop -m fast / start
exec ${run[*]} "$1/pg_ctl" -D "$data" -l "$rundir/pg.log" -w "\$@" </dev/null
EOF
	chmod 755 "$_svc_dir/$2_ctl"
	"$_svc_dir/$2_ctl" start >/dev/null || { cat "$rundir/pg.log" >&2; return 1; }
	_pg_pid=$(head -n1 "$data/postmaster.pid")
	_svc_wait_tcp "$pgport" 30 || { _svc_log "PostgreSQL did not start"; cat "$rundir/pg.log" >&2; return 1; }
	"${run[@]}" "$1/createdb" -h 127.0.0.1 -p "$pgport" -U postgres dstsafe_test </dev/null

	_pg_data=$data _pg_dsn="postgres://postgres@127.0.0.1:$pgport/dstsafe_test?sslmode=disable" _pg_ctl="$_svc_dir/$2_ctl"
}

_svc_start() {
	local missing=()
	if [[ -z "$(_svc_pg_bindir)" ]]; then missing+=(postgresql); fi
	if ! command -v redis-server >/dev/null; then missing+=(redis-server); fi
	if ((${#missing[@]})); then _svc_apt_install "${missing[@]}"; fi

	local bindir
	bindir=$(_svc_pg_bindir)
	if [[ -z "$bindir" ]]; then _svc_log "PostgreSQL binaries not found after install"; return 1; fi

	_svc_dir=$(mktemp -d "${TMPDIR:-/tmp}/dstsafe-services.XXXXXX")
	chmod 755 "$_svc_dir"
	trap _svc_stop EXIT

	# PostgreSQL refuses to run as root: run it as the `postgres` user the
	# package creates (or a user of our own), with trust auth on 127.0.0.1.
	_svc_pg_user=$(id -un)
	if [[ $(id -u) == 0 ]]; then
		_svc_pg_user=postgres
		if ! id "$_svc_pg_user" >/dev/null 2>&1; then
			_svc_pg_user=dstsafe-pg
			id "$_svc_pg_user" >/dev/null 2>&1 || useradd --system --no-create-home "$_svc_pg_user"
		fi
	fi
	# Two servers: the one every test shares, and one that the tests
	# stopping PostgreSQL stop.
	_svc_pg "$bindir" pg || return 1
	_svc_pgdata=$_pg_data _svc_pg_pid=$_pg_pid
	local dsn1=$_pg_dsn ctl1=$_pg_ctl
	_svc_pg "$bindir" pg2 || return 1
	_svc_pg2data=$_pg_data _svc_pg2_pid=$_pg_pid

	local redisport
	redisport=$(_svc_free_port)
	mkdir -p "$_svc_dir/redis"
	redis-server --bind 127.0.0.1 --port "$redisport" --dir "$_svc_dir/redis" \
		--daemonize no --save '' --appendonly no --logfile "$_svc_dir/redis.log" </dev/null &
	_svc_redis_pid=$!
	_svc_wait_tcp "$redisport" 30 || { _svc_log "Redis did not start"; cat "$_svc_dir/redis.log" >&2; return 1; }

	export DSTSAFE_TEST_POSTGRES_DSN=$dsn1
	export DSTSAFE_TEST_POSTGRES_CTL=$ctl1
	export DSTSAFE_TEST_POSTGRES_DATADIR=$_svc_pgdata
	export DSTSAFE_TEST_POSTGRES_STOPPABLE_DSN=$_pg_dsn
	export DSTSAFE_TEST_POSTGRES_STOPPABLE_CTL=$_pg_ctl
	export DSTSAFE_TEST_POSTGRES_STOPPABLE_DATADIR=$_svc_pg2data
	export DSTSAFE_TEST_REDIS_ADDR="127.0.0.1:$redisport"
	_svc_log "PostgreSQL $DSTSAFE_TEST_POSTGRES_DSN (pid $_svc_pg_pid), a second one to stop $DSTSAFE_TEST_POSTGRES_STOPPABLE_DSN (pid $_svc_pg2_pid), Redis $DSTSAFE_TEST_REDIS_ADDR (pid $_svc_redis_pid)"
}

_svc_start

fi
