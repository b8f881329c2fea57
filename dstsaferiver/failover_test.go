package dstsaferiver_test

const childEnv = "DSTSAFERIVER_FAILOVER_CHILD"

func childMain() int { return 0 }
