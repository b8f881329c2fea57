package dstsafe

import "fmt"

// withJobOptions returns a copy of c with the job-level overrides of its
// fold policy, gap policy and period key (WithJobFold, WithJobGap,
// WithJobPeriodKey). A Cron is immutable, so the copy shares nothing
// mutable with c. Auto policies resolve as ParseCron resolves them.
func (c *Cron) withJobOptions(fold *FoldPolicy, gap *GapPolicy, key *PeriodKey) (*Cron, error) {
	cc := *c
	if fold != nil || gap != nil {
		if c.every > 0 {
			return nil, fmt.Errorf("%w: @every follows real time; fold and gap policies do not apply", ErrUnsupportedOption)
		}
	}
	if fold != nil {
		if *fold > FoldBoth {
			return nil, fmt.Errorf("%w: fold policy %d", ErrUnknownPolicy, *fold)
		}
		cc.fold = c.foldPolicy(*fold)
	}
	if gap != nil {
		if *gap > GapSkip {
			return nil, fmt.Errorf("%w: gap policy %d", ErrUnknownPolicy, *gap)
		}
		cc.gap = c.gapPolicy(*gap)
	}
	if key != nil {
		cc.key = *key
	}
	return &cc, nil
}
