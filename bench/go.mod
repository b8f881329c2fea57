module github.com/dstsafe/dstsafe/bench

go 1.25.0

replace github.com/dstsafe/dstsafe => ../

require (
	github.com/dstsafe/dstsafe v0.0.0-00010101000000-000000000000
	github.com/go-co-op/gocron/v2 v2.21.2
	github.com/jonboulle/clockwork v0.5.0
	github.com/robfig/cron/v3 v3.0.1
	github.com/teambition/rrule-go v1.8.2
	golang.org/x/sys v0.47.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
