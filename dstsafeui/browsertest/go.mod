module github.com/dstsafe/dstsafe/dstsafeui/browsertest

go 1.25.0

replace (
	github.com/dstsafe/dstsafe => ../../
	github.com/dstsafe/dstsafe/dstsafeui => ../
	github.com/dstsafe/dstsafe/redisledger => ../../redisledger
	github.com/dstsafe/dstsafe/sqlledger => ../../sqlledger
	github.com/dstsafe/dstsafe/sqlledger/sqlite => ../../sqlledger/sqlite
)

require (
	github.com/chromedp/chromedp v0.23.1
	github.com/dstsafe/dstsafe v0.0.0-00010101000000-000000000000
	github.com/dstsafe/dstsafe/dstsafeui v0.0.0-00010101000000-000000000000
	github.com/dstsafe/dstsafe/redisledger v0.0.0-00010101000000-000000000000
	github.com/dstsafe/dstsafe/sqlledger v0.0.0-00010101000000-000000000000
	github.com/dstsafe/dstsafe/sqlledger/sqlite v0.0.0-00010101000000-000000000000
	github.com/jackc/pgx/v5 v5.12.0
	github.com/jonboulle/clockwork v0.5.0
	github.com/redis/go-redis/v9 v9.22.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/chromedp/cdproto v0.160.1 // indirect
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	modernc.org/libc v1.75.7 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
	modernc.org/sqlite v1.59.0 // indirect
)
