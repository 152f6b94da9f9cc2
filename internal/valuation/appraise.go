package valuation

import (
	"context"

	"valuator/internal/portfolio"
)

// Appraise values a portfolio's home (portfolio.Valuer) through Lookup, so that a home is matched, normalised,
// refused and valued exactly as a lookup of the same input would be. The answer is brief: a portfolio keeps the
// value, its range and confidence, not the model's drivers.
func (s *Service) Appraise(ctx context.Context, in portfolio.HomeInput) (portfolio.Appraisal, error) {
	res, err := s.Lookup(ctx, Input{Address: in.Address, City: in.City, State: in.State, ZIP: in.ZIP,
		Bedrooms: in.Bedrooms, Bathrooms: in.Bathrooms, SquareFeet: in.SquareFeet, YearBuilt: in.YearBuilt,
		LotSize: in.LotSize, PropertyType: in.PropertyType, Brief: true})
	if err != nil {
		return portfolio.Appraisal{}, err
	}
	p, v := res.Property, res.Valuation
	a := portfolio.Appraisal{FormattedAddress: p.FormattedAddress, Address: p.Address, City: p.City, State: p.State,
		ZIP: p.ZIP, Value: v.EstimatedValue, Low: v.Low, High: v.High, Confidence: v.Confidence, FSD: v.FSD}
	if p.Unit != nil {
		a.Unit = *p.Unit
	}
	return a, nil
}
