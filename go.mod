module github.com/dstsafe/dstsafe

go 1.25.0

require (
	github.com/jonboulle/clockwork v0.5.0
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
