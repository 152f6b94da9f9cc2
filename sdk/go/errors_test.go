package valuator

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestUnprocessableCodes: a 422 is either a value too uncertain to sell or a fact outside the records; each has its
// own predicate, read from the answer's code, and the range on record comes with the second.
func TestUnprocessableCodes(t *testing.T) {
	answer := func(body string) *APIError {
		rec := httptest.NewRecorder()
		rec.WriteHeader(http.StatusUnprocessableEntity)
		return apiError(rec.Result(), []byte(body))
	}
	uncertain := answer(`{"error":"too uncertain","code":"valuation_too_uncertain","requestId":"r1"}`)
	outside := answer(`{"error":"outside","code":"outside_records","requestId":"r2","field":"squareFeet",` +
		`"recordRange":{"field":"squareFeet","min":820,"max":5240,"homes":41,"area":"98103"}}`)
	if !IsTooUncertain(uncertain) || IsOutsideRecords(uncertain) || uncertain.RecordRange != nil {
		t.Errorf("valuation_too_uncertain: IsTooUncertain %v, IsOutsideRecords %v, range %+v",
			IsTooUncertain(uncertain), IsOutsideRecords(uncertain), uncertain.RecordRange)
	}
	if IsTooUncertain(outside) || !IsOutsideRecords(outside) || outside.Field != "squareFeet" ||
		*outside.RecordRange != (RecordRange{Field: "squareFeet", Min: 820, Max: 5240, Homes: 41, Area: "98103"}) {
		t.Errorf("outside_records: IsTooUncertain %v, IsOutsideRecords %v, field %q, range %+v",
			IsTooUncertain(outside), IsOutsideRecords(outside), outside.Field, outside.RecordRange)
	}
}

// TestAreaNotCovered: a 404 area_not_covered (an address outside the markets loaded) is told apart from the other
// 404s by its code.
func TestAreaNotCovered(t *testing.T) {
	answer := func(body string) *APIError {
		rec := httptest.NewRecorder()
		rec.WriteHeader(http.StatusNotFound)
		return apiError(rec.Result(), []byte(body))
	}
	uncovered := answer(`{"error":"We have no sales near 33131","code":"area_not_covered","requestId":"r1"}`)
	notFound := answer(`{"error":"Property not found","code":"property_not_found","requestId":"r2"}`)
	if !IsAreaNotCovered(uncovered) || !IsNotFound(uncovered) || uncovered.Message != "We have no sales near 33131" {
		t.Errorf("area_not_covered: IsAreaNotCovered %v, IsNotFound %v, %+v", IsAreaNotCovered(uncovered),
			IsNotFound(uncovered), uncovered)
	}
	if IsAreaNotCovered(notFound) || !IsNotFound(notFound) {
		t.Errorf("property_not_found: IsAreaNotCovered %v", IsAreaNotCovered(notFound))
	}
}
