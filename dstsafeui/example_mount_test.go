package dstsafeui_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/dstsafe/dstsafe"
	"github.com/dstsafe/dstsafe/dstsafeui"
)

// A service serves the ledger's pages under /ops/ledger/ beside its own
// routes, read-only, to whoever presents the operators' token.
func ExampleHandler_mount() {
	ledger := dstsafe.NewMemoryLedger(nil) // the service's ledger: sqlledger, redisledger...
	ui := dstsafeui.Handler(ledger, dstsafeui.Options{Token: "s3cret"})

	mux := http.NewServeMux()
	mux.Handle("/ops/ledger/", http.StripPrefix("/ops/ledger", ui))

	for _, auth := range []string{"", "Bearer s3cret"} {
		req := httptest.NewRequest("GET", "/ops/ledger/", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// 401
	// 200
}
