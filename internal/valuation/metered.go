package valuation

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/text"
	"valuator/internal/usage"
)

// Metered values the input and charges for it: the one path of the dashboard lookup and the public endpoint. The
// valuation exists before anything is charged (a not-found, bad input or our failure costs nothing and is recorded
// by Refused), and the debit and the usage record are written in one transaction.
func (s *Service) Metered(ctx context.Context, call usage.Call, in Input) (*Result, error) {
	res, err := s.Lookup(ctx, in)
	if err != nil {
		return nil, s.Refused(ctx, call, in, err)
	}
	rec := record(call, in, 200, s.now())
	rec.PropertyAddress = res.Property.FormattedAddress
	rec.Valuation = res.Valuation.EstimatedValue
	balance, err := s.store.Meter(ctx, rec, credit.ValuationCost, "Property valuation: "+res.Property.FormattedAddress)
	var ins *credit.ErrInsufficient
	if errors.As(err, &ins) {
		return nil, s.Refused(ctx, call, in, ins.Answer(credit.ValuationCost))
	}
	if err != nil {
		return nil, err
	}
	res.Meta.RequestID = call.RequestID
	res.Meta.Timestamp = s.now().UTC().Format(time.RFC3339)
	res.Meta.ResponseTime = time.Since(call.Start).Milliseconds()
	res.Meta.CreditsUsed = credit.ValuationCost
	res.Meta.CreditsRemaining = balance
	return res, nil
}

// Refused records a metered call that failed with err (it cost nothing) and returns err. The handlers call it for
// input they could not read, so that every call reaches the history.
func (s *Service) Refused(ctx context.Context, call usage.Call, in Input, err error) error {
	kind := apperr.KindInternal
	if e, ok := apperr.As(err); ok {
		kind = e.Kind
	}
	rec := record(call, in, kind.Status(), s.now())
	// A refused call is recorded as it was sent, made storable: a NUL or stray bytes in the address must not cost
	// the caller the record of their error.
	rec.PropertyAddress = text.Sanitize(in.Line())
	if uerr := s.store.RecordUsage(ctx, rec); uerr != nil {
		s.log.Error("recording usage", "request_id", rec.RequestID, "err", uerr)
	}
	return err
}

func record(call usage.Call, in Input, status int, now time.Time) usage.Record {
	rec := call.Record(usage.ServiceValuation, status, now)
	data, _ := json.Marshal(in)
	rec.RequestData = string(data)
	return rec
}
