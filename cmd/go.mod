module github.com/dstsafe/dstsafe/cmd

go 1.25.0

replace github.com/dstsafe/dstsafe => ../

require (
	github.com/dstsafe/dstsafe v0.0.0-00010101000000-000000000000
	github.com/golangci/plugin-module-register v0.1.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/tools v0.49.0
)

require (
	github.com/jonboulle/clockwork v0.5.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/mod v0.40.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
