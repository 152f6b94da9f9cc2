package billing

import (
	"bytes"
	"encoding/json"
	"math/big"

	"valuator/internal/apperr"
)

// MsgOverageLimit is the spec's text for a bad overage limit (working-screens section 5).
const MsgOverageLimit = "Please enter a valid positive number or leave empty to remove limit."

// ParseOverageLimit reads the `limit` of PUT /api/user/overage-limit: null (no limit) or a number of dollars, not
// negative, with at most two decimals, up to MaxOverageLimitCents. It is read from the JSON text exactly, never
// through a float, so 0.1 is 10 cents and not 9.
func ParseOverageLimit(raw json.RawMessage) (*int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, apperr.Invalid("limit", "limit is required: a number of dollars, or null for no limit")
	}
	if string(raw) == "null" {
		return nil, nil
	}
	var num json.Number
	if raw[0] == '"' || json.Unmarshal(raw, &num) != nil {
		return nil, apperr.Invalid("limit", MsgOverageLimit)
	}
	if len(raw) > 64 {
		return nil, apperr.Invalid("limit", MsgOverageLimit)
	}
	r, ok := new(big.Rat).SetString(num.String())
	if !ok || r.Sign() < 0 {
		return nil, apperr.Invalid("limit", MsgOverageLimit)
	}
	cents := new(big.Rat).Mul(r, big.NewRat(100, 1))
	if !cents.IsInt() {
		return nil, apperr.Invalid("limit", "limit must be in dollars and cents, with at most two decimals")
	}
	if cents.Cmp(new(big.Rat).SetInt64(MaxOverageLimitCents)) > 0 {
		return nil, apperr.Invalid("limit", "limit must be at most "+Dollars(MaxOverageLimitCents)+"; leave it empty for no limit")
	}
	c := cents.Num().Int64()
	return &c, nil
}
