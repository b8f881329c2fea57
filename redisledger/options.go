package redisledger

import (
	"time"

	"github.com/dstsafe/dstsafe"
)

// An Option configures a Ledger built by New. An option given a nil value
// (WithClock(nil)), and a nil Option, mean the option's default, as if it
// were not given; they never panic.
type Option func(*config)

type config struct {
	prefix       string
	clock        dstsafe.Clock
	finishedTTL  time.Duration
	autoPipeline bool
}

// DefaultKeyPrefix is the prefix of every key a Ledger writes unless
// WithKeyPrefix names another.
const DefaultKeyPrefix = "dstsafe:"

// WithKeyPrefix makes the Ledger keep its keys under prefix instead of
// DefaultKeyPrefix, so that several ledgers (or test runs) can share one
// Redis database. The prefix must not contain '{' or '}' (New refuses
// it): the Ledger puts the job name in a hash tag after it, so that a
// job's keys share a Redis Cluster slot. Defaults to "dstsafe:".
func WithKeyPrefix(prefix string) Option {
	return func(c *config) { c.prefix = prefix }
}

// WithClock makes the Ledger judge time by clock instead of Redis TIME: it
// stamps claims, heartbeats, finishes and pauses, decides whether a lease
// is over, and is what ClaimRequest.Now is checked against. For tests and
// simulation (a *clockwork.FakeClock drives lease expiry); production uses
// Redis's clock, which every replica shares, so that a replica whose clock
// runs ahead cannot see a running claim as abandoned. Defaults to Redis
// TIME (of the node holding the job's keys), also when clock is nil.
func WithClock(clock dstsafe.Clock) Option {
	return func(c *config) { c.clock = clock }
}

// WithFinishedTTL makes Redis delete a record ttl after it was finished
// (succeeded, failed or skipped). Running records never expire.
//
// Defaults to no expiry, and that default is deliberate: once a succeeded
// record expires, nothing remembers that its period ran, and the next claim
// of that period succeeds and runs the job again. An expiring key is how a
// Redis guard let a duplicate charge through in an incident this library
// was written after. Set a TTL only for jobs that are harmless to repeat,
// and make it far longer than any scheduler could still ask for the period
// (catch-up after an outage, a replayed queue). A ttl <= 0 means no expiry.
func WithFinishedTTL(ttl time.Duration) Option {
	return func(c *config) { c.finishedTTL = ttl }
}

// WithAutoPipeline sends the Ledger's commands through the client's
// AutoPipeline, which merges the commands of concurrent callers into one
// pipeline per round trip: several times the claims per second when many
// goroutines claim at once, at the cost of go-redis's experimental
// autopipelining (a batch that fails on a network error is retried whole;
// every ledger command is safe to repeat). Clients without it (a
// *redis.Ring) are used directly. Defaults to off.
func WithAutoPipeline() Option {
	return func(c *config) { c.autoPipeline = true }
}
