package valuation

import (
	"reflect"
	"strings"
	"testing"

	"valuator/internal/property"
	"valuator/internal/store"
)

// TestRecordsRoundTrip: the compact records give back each home's record as read, field for field, including a
// home whose own strings are longer than the compact layout holds.
func TestRecordsRoundTrip(t *testing.T) {
	home := func(id int64, street, zip string) property.Home {
		return property.Home{ID: id, Source: "demo", ExternalID: "X" + street, Street: street, UnitType: "APT",
			Unit: "2", City: "SEATTLE", State: "WA", ZIP: zip, StreetKey: street + "|K", UnitKey: "2", NameKey: "N",
			Lat: 47.6, Lon: -122.3, County: "King County", Type: "Condo", Beds: 2, Baths: 1.5, Sqft: 900,
			LotSqft: 0, Floors: 1, YearBuilt: 1990, YearRenov: 0, Grade: 7, Condition: 3, View: 0, Water: 0,
			SqftAbove: 900, SqftBase: 0, NbrSqft: 1000, NbrLot: 2000, ImageURL: "img"}
	}
	homes := []property.Home{home(1, "1 MAIN ST", "98103"), home(2, strings.Repeat("LONG ", 20000), "98104"),
		home(3, "", "98103")}
	md := store.MarketData{Homes: homes}
	r := newRecords(md.Homes, toMarket(md))
	if len(r.long) != 1 {
		t.Fatalf("%d long homes, want 1", len(r.long))
	}
	for i := range homes {
		if got := r.home(int32(i)); !reflect.DeepEqual(*got, homes[i]) {
			t.Errorf("home %d: got %+v, want %+v", i, *got, homes[i])
		}
	}
}
