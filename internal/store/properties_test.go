package store

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"valuator/internal/property"
	"valuator/internal/testdb"
)

func home(ext, street, key, unit string, sqft float64) property.Home {
	h := property.NewHome()
	h.ExternalID, h.Street, h.StreetKey, h.UnitKey, h.Unit = ext, street, key, unit, unit
	h.City, h.State, h.ZIP = "SACRAMENTO", "CA", "95838"
	h.Lat, h.Lon, h.Sqft, h.Beds, h.Type = 38.63, -121.43, sqft, 3, "Single Family"
	return h
}

func TestImportRecordsIsIdempotentAndMatchesAddresses(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		d := time.Date(2008, 5, 21, 0, 0, 0, 0, time.UTC)
		recs := []property.Record{
			{Line: 2, Home: home("", "3526 HIGH ST", "3526||HIGH|ST|", "", 836), SaleDate: d, Price: 59222},
			{Line: 3, Home: home("", "51 OMAHA CT", "51||OMAHA|CT|", "", math.NaN()), SaleDate: d, Price: 68212},
			{Line: 4, Home: home("", "51 OMAHA CT", "51||OMAHA|CT|", "", 1167), SaleDate: d.AddDate(0, 0, 1), Price: 70000},
			{Line: 5, Home: home("", "100 PARK AVE APT 2", "100||PARK|AVE|", "2", 700), SaleDate: d, Price: 150000},
			{Line: 6, Home: home("", "100 PARK AVE APT 3", "100||PARK|AVE|", "3", 720), SaleDate: d, Rent: 1400},
		}
		st, err := db.ImportRecords(ctx, "sacramento", recs, t0)
		if err != nil {
			t.Fatal(err)
		}
		want := ImportStats{PropertiesCreated: 4, PropertiesUpdated: 1, SalesAdded: 4, RentalsAdded: 1}
		if st != want {
			t.Errorf("first import = %+v, want %+v", st, want)
		}
		// The same file again adds nothing.
		st, err = db.ImportRecords(ctx, "sacramento", recs, t0)
		if err != nil {
			t.Fatal(err)
		}
		if st.PropertiesCreated != 0 || st.SalesAdded != 0 || st.RentalsAdded != 0 || st.Duplicates != 5 {
			t.Errorf("second import = %+v, want only duplicates", st)
		}
		md, err := db.LoadMarket(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(md.Homes) != 4 || len(md.Sales) != 4 || len(md.Rentals) != 1 {
			t.Fatalf("market has %d homes, %d sales, %d rentals", len(md.Homes), len(md.Sales), len(md.Rentals))
		}
		// 51 Omaha Ct: the later record filled the unknown living area, and unknowns stay NaN.
		var omaha property.Home
		for _, h := range md.Homes {
			if h.Street == "51 OMAHA CT" {
				omaha = h
			}
		}
		if omaha.Sqft != 1167 || omaha.Beds != 3 || !math.IsNaN(omaha.LotSqft) || omaha.Source != "sacramento" {
			t.Errorf("51 Omaha Ct = %+v", omaha)
		}
		// The shared (interned) columns read back as written, on every home.
		for _, h := range md.Homes {
			if h.Source != "sacramento" || h.City != "SACRAMENTO" || h.State != "CA" || h.ZIP != "95838" ||
				h.Type != "Single Family" || h.County != "" || h.ImageURL != "" {
				t.Errorf("home read back as %+v", h)
			}
			if want := map[string]string{"100 PARK AVE APT 2": "2", "100 PARK AVE APT 3": "3"}[h.Street]; h.Unit != want {
				t.Errorf("%s: unit %q, want %q", h.Street, h.Unit, want)
			}
		}
		if !md.Sales[0].Date.Equal(d) || md.Sales[0].Price != 59222 {
			t.Errorf("first sale = %+v", md.Sales[0])
		}
		if md.Rentals[0].Rent != 1400 || !md.Rentals[0].Date.Equal(d) {
			t.Errorf("rental = %+v", md.Rentals[0])
		}
	})
}

func TestImportBySourceID(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		d := time.Date(2014, 10, 13, 0, 0, 0, 0, time.UTC)
		a := home("7129300520", "", "", "", 1180)
		b := home("7129300520", "", "", "", 1180)
		b.Grade = 7
		st, err := db.ImportRecords(ctx, "kingcounty", []property.Record{
			{Line: 2, Home: a, SaleDate: d, Price: 221900},
			{Line: 3, Home: b, SaleDate: d.AddDate(1, 0, 0), Price: 250000},
		}, t0)
		if err != nil {
			t.Fatal(err)
		}
		if st.PropertiesCreated != 1 || st.SalesAdded != 2 {
			t.Errorf("stats = %+v, want one home with two sales", st)
		}
		// A record with neither an id nor an address is refused, naming its line.
		_, err = db.ImportRecords(ctx, "kingcounty", []property.Record{{Line: 9, Home: home("", "", "", "", 1)}}, t0)
		if err == nil || !strings.Contains(err.Error(), "line 9") {
			t.Errorf("error = %v, want one naming line 9", err)
		}
		// The failed batch wrote nothing.
		n, _ := db.CountProperties(ctx)
		if n != 1 {
			t.Errorf("%d properties after a failed batch, want 1", n)
		}
	})
}

func TestModelsAreSavedAndPruned(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		if _, err := db.LoadModel(ctx, "none", 1); !errors.Is(err, ErrNoModel) {
			t.Errorf("LoadModel(unknown) error = %v, want ErrNoModel", err)
		}
		for i, fp := range []string{"a", "b", "c", "d"} {
			if err := db.SaveModel(ctx, fp, 1, []byte{byte(i), 0xff}, t0); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.LoadModel(ctx, "a", 1); !errors.Is(err, ErrNoModel) {
			t.Errorf("the oldest model was kept: %v", err)
		}
		blob, err := db.LoadModel(ctx, "d", 1)
		if err != nil || len(blob) != 2 || blob[0] != 3 || blob[1] != 0xff {
			t.Errorf("LoadModel(d) = %v, %v", blob, err)
		}
		if _, err := db.LoadModel(ctx, "d", 2); !errors.Is(err, ErrNoModel) {
			t.Errorf("a model of another version was returned: %v", err)
		}
		v1, _ := db.MarketVersion(ctx)
		if _, err := db.ImportRecords(ctx, "x", []property.Record{{Home: home("1", "", "", "", 1)}}, t0); err != nil {
			t.Fatal(err)
		}
		v2, _ := db.MarketVersion(ctx)
		if v1 == v2 {
			t.Errorf("MarketVersion did not change after an import: %q", v1)
		}
	})
}
