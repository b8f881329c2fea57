module github.com/dstsafe/dstsafe/dstsafeui

go 1.25.0

replace github.com/dstsafe/dstsafe => ../

require (
	github.com/dstsafe/dstsafe v0.0.0-00010101000000-000000000000
	github.com/jonboulle/clockwork v0.5.0
)
