module github.com/dstsafe/dstsafe/redisledger

go 1.25.0

replace github.com/dstsafe/dstsafe => ../

require (
	github.com/dstsafe/dstsafe v0.0.0-00010101000000-000000000000
	github.com/jonboulle/clockwork v0.5.0
	github.com/redis/go-redis/v9 v9.22.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
