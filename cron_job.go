package dstsafe

// withPolicies returns c with its fold and/or gap policy replaced, for the
// WithJobFold and WithJobGap job options.
func (c *Cron) withPolicies(fold *FoldPolicy, gap *GapPolicy) (*Cron, error) {
	return nil, ErrUnsupportedOption // TODO: needs the core's CronOptions
}
