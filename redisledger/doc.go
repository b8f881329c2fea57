// Package redisledger is a [dstsafe.Ledger] kept in Redis, for teams that
// already run Redis: every replica of a scheduler claims (job, period)
// there before it runs, and exactly one claim of each period wins.
//
//	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	ledger, err := redisledger.New(client)
//	if err != nil {
//		return err // an option New cannot use: a *ConfigError
//	}
//
// # Records never expire
//
// A succeeded record stays in Redis for good, unless WithFinishedTTL says
// otherwise. This is the point of the package, not an oversight: the
// second incident this library was written after had a Redis guard whose
// key expired, after which the same customers were charged again. A
// period is remembered by the key that says it ran; delete that key (by a
// TTL, an eviction policy, a FLUSHDB, a restart without persistence) and
// the period can be claimed and run again.
//
// So the Redis server that holds a ledger must keep what it acknowledged:
//
//   - maxmemory-policy noeviction (the default): an allkeys-* policy evicts
//     ledger records, a volatile-* one those given a TTL;
//   - appendonly yes with appendfsync always (everysec may lose the claims
//     of the last second in a crash, and a lost claim can run twice);
//   - no failover to a replica that may lag (asynchronous replication
//     loses acknowledged writes), or WAIT-based setups you have checked.
//
// # How it is stored
//
// Each (job, period) is one string key holding the record as JSON, so
// `redis-cli GET` shows it whole, and each job has a sorted set of its
// periods (all at score 0) that List reads with ZRANGEBYLEX:
//
//	dstsafe:{7:billing}:run:2024-11-03
//	  {"job":"billing","period":"2024-11-03","state":"succeeded","owner":"host-a",
//	   "token":1,"attempt":1,"started_at":"2024-11-03T06:30:00Z",
//	   "lease_until":"2024-11-03T06:31:00Z","finished_at":"2024-11-03T06:30:41Z",
//	   "claim":"9c1e4f0a2b7d3e18"}
//	dstsafe:{7:billing}:periods   ZSET: 2024-11-03, ...
//	dstsafe:{7:billing}:pause
//	  {"paused":true,"by":"ops@bastion","reason":"incident 42","since":"2024-11-03T06:30:00Z"}
//	dstsafe:{7:billing}:job        the job's registration (dstsafe.JobRegistry, registry.go)
//
// A claim that gives a ClaimRequest.ID adds "claim_id" (a Claim retried
// with the same Owner and ID finds its own attempt by it); one that gives
// a ClaimRequest.Schedule adds "schedule"; records
// without it (written before it was kept) read with an empty one. An
// operator's release (Release, of dstsafe.ControlLedger) adds "released",
// "released_by" and "release_reason"; the takeover drops "released". The
// pause key exists once a job was first paused (SetPause), the job key
// once it was first registered (RegisterJob).
//
// The job name is length-prefixed (so no two pairs share a key, whatever
// they contain) and inside braces, a Redis Cluster hash tag: a job's keys
// live in one slot, and each script touches only those.
//
// # Claims and transitions
//
// A claim of a new period is SET NX of a running record, in a Lua script
// that also indexes the period. Takeover, heartbeat, finish, release and
// pause are decided in Go by Redis's clock (TIME, read from the node of
// the job's slot just before; WithClock's Clock instead in tests), never
// by the clock of the replica that asks, and applied by a Lua
// compare-and-set that writes only if the stored value is still, byte for
// byte, the one the decision was made on. The bytes include the fencing token, the state and
// the lease: a holder whose period was taken over gets dstsafe.ErrLeaseLost
// and its late result is never written. As in the memory ledger, a running
// record past its lease reads as dstsafe.StateAbandoned; it is never
// stored as such, and Redis key expiry plays no part in leases.
//
// A claim whose dstsafe.ClaimRequest.Now is further from Redis's clock
// than its MaxClockOffset is refused with an error wrapping
// dstsafe.ErrClockSkew before anything is written: the TIME read is the
// call's first command.
//
// # Errors
//
// The ledger's conditions are the dstsafe sentinels: ErrAlreadyClaimed (a
// *dstsafe.ClaimedError), ErrLeaseLost, ErrNotFound, ErrInvalidArgument,
// ErrInvalidArgument. A failure of Redis itself (connection refused, a
// timeout, ctx done) is returned wrapped and matches none of them: the
// caller cannot know whether the write happened. A later Claim of the
// period tells: a claim whose reply was lost is a running record owned by
// the caller, abandoned after its lease, never a second run. A value under
// a ledger key that the ledger did not write is a *CorruptRecordError and
// is never overwritten.
//
// Failures that retrying cannot fix also match dstsafe.ErrPermanent: a
// closed client (redis.ErrClosed), credentials or permissions the server
// refused (NOAUTH, WRONGPASS, NOPERM), a ledger key holding another type
// (WRONGTYPE) and a *CorruptRecordError. A refused or dropped connection,
// a timeout or a server still loading its data are transient.
package redisledger
