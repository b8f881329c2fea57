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
		switch f := *fold; {
		case f == FoldAuto && c.fixed:
			cc.fold = FoldFirst
		case f == FoldAuto:
			cc.fold = FoldBoth
		case f <= FoldBoth:
			cc.fold = f
		default:
			return nil, fmt.Errorf("%w: unknown fold policy %d", ErrUnsupportedOption, f)
		}
	}
	if gap != nil {
		switch g := *gap; {
		case g == GapAuto && c.fixed:
			cc.gap = GapShift
		case g == GapAuto:
			cc.gap = GapSkip
		case g <= GapSkip:
			cc.gap = g
		default:
			return nil, fmt.Errorf("%w: unknown gap policy %d", ErrUnsupportedOption, g)
		}
	}
	if key != nil {
		cc.key = *key
	}
	return &cc, nil
}
