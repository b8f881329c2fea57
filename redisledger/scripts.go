package redisledger

import "github.com/redis/go-redis/v9"

// The scripts take no decisions: the Go side decides every transition with
// the ledger's clock (Redis TIME read by timeScript just before, or the
// Clock of WithClock in tests), and a script applies it only if the record
// is still exactly what the decision was made on. A decision made on a
// TIME read before the write stays right at the write: Redis's clock only
// moves on, so a lease over then is over still, and a heartbeat in
// between changes the record and fails the compare-and-set. The stored bytes include the fencing token, the state and
// the lease, so a holder whose token was taken over, or a takeover racing a
// heartbeat, can never write over the newer record.

// claimScript creates a record with SET NX and indexes its period.
//
//	KEYS[1] record key, KEYS[2] the job's period index
//	ARGV[1] new record, ARGV[2] period
//
// Returns {1} when the record was created (or the client retried a claim
// whose first reply was lost: the stored value is byte for byte ours,
// including the claim's random id), else {0, existing record}.
var claimScript = redis.NewScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
	redis.call('ZADD', KEYS[2], 0, ARGV[2])
	return {1}
end
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
	return {1}
end
return {0, cur}
`)

// swapScript replaces a record if it is still exactly the expected one:
// takeover, heartbeat and finish are all this compare-and-set on the
// fencing token and everything else the decision was based on. It indexes
// the period again (a no-op unless the index entry was lost).
//
//	KEYS[1] record key, KEYS[2] the job's period index
//	ARGV[1] expected record, ARGV[2] new record, ARGV[3] period,
//	ARGV[4] time to live in milliseconds, 0 for none
//
// Returns {1} when swapped (or when the stored record already is the new
// one: a retried swap), {0, current record} otherwise, {0} if there is none.
var swapScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[2] then
	return {1}
end
if cur ~= ARGV[1] then
	if cur then
		return {0, cur}
	end
	return {0}
end
local ttl = tonumber(ARGV[4])
if ttl > 0 then
	redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
else
	redis.call('SET', KEYS[1], ARGV[2])
end
redis.call('ZADD', KEYS[2], 0, ARGV[3])
return {1}
`)

// pruneScript drops from a job's index the periods whose record is gone
// (expired by a finished TTL), checking each record in the same atomic
// step, so that a claim re-creating one of them in the meantime keeps its
// index entry.
//
//	KEYS[1] the job's period index, KEYS[i+1] the record key of ARGV[i]
//	ARGV periods
//
// Returns how many were dropped.
var pruneScript = redis.NewScript(`
local n = 0
for i, period in ipairs(ARGV) do
	if redis.call('EXISTS', KEYS[i + 1]) == 0 then
		n = n + redis.call('ZREM', KEYS[1], period)
	end
end
return n
`)

// setScript replaces the value of a key if it is still exactly the
// expected one, or creates it if the expected one is "" and there is
// none: the compare-and-set of a job's pause state.
//
//	KEYS[1] key
//	ARGV[1] expected value ("" for none), ARGV[2] new value
//
// Returns {1} when set (or already the new value: a retried set), {0,
// current value} otherwise, {0} if there is none.
var setScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[2] then
	return {1}
end
if (cur or '') ~= ARGV[1] then
	if cur then
		return {0, cur}
	end
	return {0}
end
redis.call('SET', KEYS[1], ARGV[2])
return {1}
`)

// timeScript returns Redis TIME ({seconds, microseconds}) from the node
// holding KEYS[1], which it does not touch: in a Redis Cluster, the node
// that holds the record being decided on.
var timeScript = redis.NewScript(`
local t = redis.call('TIME')
return {tonumber(t[1]), tonumber(t[2])}
`)
