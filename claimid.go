package dstsafe

import (
	"math/rand/v2"
	"strconv"
	"sync/atomic"
)

// claimIDs names a Scheduler's claims (ClaimRequest.ID): one ID per period
// it claims, reused by every try of that claim, so a claim whose answer
// was lost (the store committed, the reply never came) finds its own
// attempt on the next try instead of a *ClaimedError naming its own
// owner. The nonce tells two processes under one owner name apart (a
// restarted replica reusing "host:pid" in a container), the counter two
// claims of one process.
type claimIDs struct {
	nonce string
	seq   atomic.Uint64
}

func newClaimIDs() *claimIDs {
	return &claimIDs{nonce: strconv.FormatUint(rand.Uint64(), 36)}
}

// next returns a new claim ID, unique in this process and, with
// overwhelming probability, across processes.
func (c *claimIDs) next() string {
	var buf [40]byte // on the stack: one allocation, the string (a claim per fire)
	b := append(append(buf[:0], c.nonce...), '-')
	return string(strconv.AppendUint(b, c.seq.Add(1), 36))
}
