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

// TestMarketPartitions (issue 39): a state's records read alone, each state's version, each partition's engines
// pruned apart from the others', and a partition's training lock taken by one holder at a time.
func TestMarketPartitions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		ca, wa := home("1", "1 A St", "1 a st", "", 1000), home("2", "2 B St", "2 b st", "", 2000)
		wa.City, wa.State, wa.ZIP = "SEATTLE", "WA", "98103"
		d := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
		if _, err := db.ImportRecords(ctx, "x", []property.Record{{Home: ca, SaleDate: d, Price: 300000},
			{Home: wa, SaleDate: d, Price: 700000}, {Home: wa, SaleDate: d.AddDate(1, 0, 0), Price: 750000}}, t0); err != nil {
			t.Fatal(err)
		}
		var homes []string
		var sales []int64
		if err := db.EachMarketOf(ctx, "WA", MarketVisitor{
			Counts: func(h, s, r int) {
				if h != 1 || s != 2 || r != 0 {
					t.Errorf("WA counts %d homes, %d sales, %d rents; want 1, 2, 0", h, s, r)
				}
			},
			Home:   func(h *property.Home) { homes = append(homes, h.State+" "+h.Street) },
			Sale:   func(s property.Sale) { sales = append(sales, s.Price) },
			Rental: func(property.Rental) {},
		}); err != nil {
			t.Fatal(err)
		}
		if len(homes) != 1 || homes[0] != "WA 2 B St" || len(sales) != 2 || sales[0] != 700000 {
			t.Errorf("WA's records: homes %v, sales %v", homes, sales)
		}
		v1, err := db.PartVersions(ctx)
		if err != nil || len(v1) != 2 || v1["CA"] == "" || v1["WA"] == "" {
			t.Fatalf("PartVersions = %v, %v", v1, err)
		}
		if _, err := db.ImportRecords(ctx, "x", []property.Record{{Home: wa, SaleDate: d.AddDate(2, 0, 0), Price: 800000}}, t0); err != nil {
			t.Fatal(err)
		}
		v2, _ := db.PartVersions(ctx)
		if v2["CA"] != v1["CA"] || v2["WA"] == v1["WA"] {
			t.Errorf("after a sale in WA: CA %q -> %q, WA %q -> %q; want WA's version only to change", v1["CA"], v2["CA"],
				v1["WA"], v2["WA"])
		}

		// Each partition keeps its newest three engines, whatever the others save.
		for i, fp := range []string{"wa1", "wa2", "wa3"} {
			if err := db.SaveModelOf(ctx, "WA", fp, 1, []byte{byte(i)}, t0); err != nil {
				t.Fatal(err)
			}
		}
		for _, fp := range []string{"ca1", "ca2", "ca3", "ca4"} {
			if err := db.SaveModelOf(ctx, "CA", fp, 1, []byte{1}, t0); err != nil {
				t.Fatal(err)
			}
		}
		for fp, kept := range map[string]bool{"wa1": true, "wa2": true, "wa3": true, "ca1": false, "ca4": true} {
			if _, err := db.LoadModel(ctx, fp, 1); (err == nil) != kept {
				t.Errorf("engine %s kept: %v, want %v", fp, err == nil, kept)
			}
		}

		// The lock: a second holder is refused while the first holds it, and gets it after.
		ran, err := db.TryLock(ctx, LockTrain+1, func() error {
			inner, err := db.TryLock(ctx, LockTrain+1, func() error { return nil })
			if err != nil || inner {
				t.Errorf("a second TryLock while the lock is held: ran %v, %v", inner, err)
			}
			return nil
		})
		if err != nil || !ran {
			t.Errorf("TryLock: ran %v, %v", ran, err)
		}
		if ran, err := db.TryLock(ctx, LockTrain+1, func() error { return nil }); err != nil || !ran {
			t.Errorf("TryLock after the holder let go: ran %v, %v", ran, err)
		}
	})
}
