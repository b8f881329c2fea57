package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// The wire format is a small subset of Stripe's: POST /v1/charges with an
// Idempotency-Key header; replays carry Idempotent-Replayed: true.
const chargesPath = "/v1/charges"

type wireRequest struct {
	Customer string `json:"customer"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

type wireError struct {
	Error struct {
		Type string `json:"type"` // card_error, idempotency_error, invalid_request_error
		Code string `json:"code"`
	} `json:"error"`
}

// Handler serves p over HTTP, so that a processor can run in another
// process than the billing job (and survive it being killed).
func Handler(p Processor) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+chargesPath, func(w http.ResponseWriter, r *http.Request) {
		var body wireRequest
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "bad_body")
			return
		}
		c, err := p.Charge(r.Context(), Request{
			IdempotencyKey: r.Header.Get("Idempotency-Key"),
			CustomerRef:    body.Customer,
			AmountMinor:    body.Amount,
			Currency:       body.Currency,
		})
		var decline *DeclineError
		switch {
		case err == nil:
			if c.Replayed {
				w.Header().Set("Idempotent-Replayed", "true")
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(c)
		case errors.As(err, &decline):
			writeError(w, http.StatusPaymentRequired, "card_error", decline.Code)
		case errors.Is(err, ErrNoIdempotencyKey):
			writeError(w, http.StatusBadRequest, "invalid_request_error", "idempotency_key_required")
		case errors.Is(err, ErrKeyReused):
			writeError(w, http.StatusBadRequest, "idempotency_error", "idempotency_key_reused")
		case errors.Is(err, ErrInFlight):
			writeError(w, http.StatusConflict, "idempotency_error", "idempotency_key_in_use")
		default:
			// The charge may have been made: the client must retry with the
			// same key to learn the result.
			writeError(w, http.StatusServiceUnavailable, "api_error", "unavailable")
		}
	})
	return mux
}

func writeError(w http.ResponseWriter, status int, typ, code string) {
	var e wireError
	e.Error.Type, e.Error.Code = typ, code
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(e)
}

// HTTPClient is a Processor that talks to a Handler at BaseURL.
// It refuses to send a request without an idempotency key.
type HTTPClient struct {
	BaseURL string
	// Client defaults to http.DefaultClient.
	Client *http.Client
}

// Charge sends req to the processor. Errors from the processor map back
// onto the package's sentinels; network failures and 5xx answers are
// Retryable.
func (c *HTTPClient) Charge(ctx context.Context, req Request) (Charge, error) {
	if req.IdempotencyKey == "" {
		return Charge{}, ErrNoIdempotencyKey
	}
	body, err := json.Marshal(wireRequest{Customer: req.CustomerRef, Amount: req.AmountMinor, Currency: req.Currency})
	if err != nil {
		return Charge{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.BaseURL, "/")+chargesPath, bytes.NewReader(body))
	if err != nil {
		return Charge{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Idempotency-Key", req.IdempotencyKey)
	hc := c.Client
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hr)
	if err != nil {
		return Charge{}, transportError(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Charge{}, transportError(err)
	}
	if resp.StatusCode == http.StatusOK {
		var ch Charge
		if err := json.Unmarshal(raw, &ch); err != nil {
			return Charge{}, transportError(err)
		}
		ch.Replayed = resp.Header.Get("Idempotent-Replayed") == "true"
		return ch, nil
	}
	var we wireError
	_ = json.Unmarshal(raw, &we)
	switch {
	case resp.StatusCode == http.StatusPaymentRequired:
		return Charge{}, &DeclineError{Code: we.Error.Code}
	case we.Error.Code == "idempotency_key_required":
		return Charge{}, ErrNoIdempotencyKey
	case we.Error.Code == "idempotency_key_reused":
		return Charge{}, fmt.Errorf("%w: key %q", ErrKeyReused, req.IdempotencyKey)
	case resp.StatusCode == http.StatusConflict:
		return Charge{}, fmt.Errorf("%w: key %q", ErrInFlight, req.IdempotencyKey)
	}
	return Charge{}, transportError(fmt.Errorf("status %d %s", resp.StatusCode, we.Error.Code))
}

var _ Processor = (*HTTPClient)(nil)
