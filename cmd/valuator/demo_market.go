package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"valuator/internal/demo"
	"valuator/internal/person"
	"valuator/internal/property"
	"valuator/internal/store"
)

// importDemoMarket generates the demo market ending on now's day and imports it, in batches of 1,000 records,
// streamed as they are generated (demo.EachRecordsN): the import holds one home and one ZIP code's streets at a
// time, never the market, whatever its size.
func importDemoMarket(ctx context.Context, db *store.DB, seed uint64, homes int, now time.Time) (store.ImportStats, error) {
	var total store.ImportStats
	err := demo.EachRecordsN(seed, now, homes, 1000, func(batch []property.Record) error {
		st, err := db.ImportRecords(ctx, demo.Source, batch, now)
		if err == nil {
			total.Add(st)
		}
		return err
	})
	return total, err
}

// seedDemoMarket fills an empty development database with the demo market, so that `make run` values homes out
// of the box. A database with any property records is left alone.
func seedDemoMarket(ctx context.Context, db *store.DB, now time.Time, stdout io.Writer) error {
	// Under the seeding lock: instances started together on one empty database import the market once.
	return db.WithLock(ctx, store.LockDemoSeed, func() error { return importDemoMarketIfEmpty(ctx, db, now, stdout) })
}

func importDemoMarketIfEmpty(ctx context.Context, db *store.DB, now time.Time, stdout io.Writer) error {
	n, err := db.CountProperties(ctx)
	if err != nil || n > 0 {
		return err
	}
	st, err := importDemoMarket(ctx, db, 1, demo.DefaultHomes, now)
	if err != nil {
		return fmt.Errorf("demo market: %w", err)
	}
	fmt.Fprintf(stdout, "Development mode: generated the demo market (%d homes, %d sales, %d rents in 7 metro areas; try 'valuator demo --help')\n",
		st.PropertiesCreated, st.SalesAdded, st.RentalsAdded)
	return nil
}

// maxDemoHomes is the largest market `valuator demo` generates. The import's memory does not grow with it
// (the records are streamed as they are generated); its time and the database's size do, about 80 µs and 0.6 KB
// on disk a home (docs/operations.md).
const maxDemoHomes = 10_000_000

const demoUsage = `Usage: valuator demo [--homes N] [--seed S] [--replace]

Generates the demo market (homes with addresses in real ZIP codes of seven metro areas, ten years of sales and
three of rents, priced by a hedonic model fitted on King County sales) and imports it as source "demo". Results
valued from it are marked as demo data. With --replace, existing demo records are deleted first.

--homes is 100 to 10000000 (3000 by default). The records are streamed into the database as they are
generated, so the import's memory does not grow with the market; a million homes take a few minutes and
about 0.6 GB of disk.
`

func runDemo(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, demoUsage) }
	homes := fs.Int("homes", demo.DefaultHomes, "how many homes (100 to 10000000)")
	seed := fs.Uint64("seed", 1, "random seed (the same seed gives the same market)")
	replace := fs.Bool("replace", false, "delete existing demo records first")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *homes < 100 || *homes > maxDemoHomes {
		return fmt.Errorf("--homes must be between 100 and %d", maxDemoHomes)
	}
	cfg, _, err := loadConfig("demo", nil, getenv, stderr)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	existing, err := db.CountSource(ctx, demo.Source)
	if err != nil {
		return err
	}
	if existing > 0 {
		if !*replace {
			return fmt.Errorf("the database already holds %d demo homes; use --replace to generate them again", existing)
		}
		if _, err := db.DeleteSource(ctx, demo.Source); err != nil {
			return err
		}
	}
	st, err := importDemoMarket(ctx, db, *seed, *homes, cfg.Clock().Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "demo market imported: %d homes, %d sales, %d rents (the server retrains on its next check)\n",
		st.PropertiesCreated, st.SalesAdded, st.RentalsAdded)
	return nil
}

// seedDemoPeople fills an empty people directory in development with the demo market's residents: one fictional
// person per demo home (names from a short list, 555-01xx phone numbers, example.com emails), marked as demo data.
func seedDemoPeople(ctx context.Context, db *store.DB, now time.Time, stdout io.Writer) error {
	// Under the seeding lock, as the market is.
	return db.WithLock(ctx, store.LockDemoSeed, func() error { return importDemoPeopleIfEmpty(ctx, db, now, stdout) })
}

func importDemoPeopleIfEmpty(ctx context.Context, db *store.DB, now time.Time, stdout io.Writer) error {
	n, err := db.CountPeople(ctx)
	if err != nil || n > 0 {
		return err
	}
	var addrs []person.Address
	seen := map[string]bool{}
	for _, r := range demo.GenerateN(1, now, demo.DefaultHomes).Records() {
		h := r.Home
		line1 := demoStreet(h)
		key := line1 + "|" + h.ZIP
		if h.Street == "" || seen[key] {
			continue
		}
		seen[key] = true
		addrs = append(addrs, person.Address{StreetLine1: line1, City: h.City, StateCode: h.State, PostalCode: h.ZIP,
			LatLong: &person.LatLong{Latitude: h.Lat, Longitude: h.Lon}})
	}
	stored, _, err := db.ImportPeople(ctx, demo.Source, person.DemoResidents(addrs, 1), now)
	if err != nil {
		return fmt.Errorf("demo people: %w", err)
	}
	fmt.Fprintf(stdout, "Development mode: generated %d fictional residents of the demo homes for person lookup\n", stored)
	return nil
}

// demoStreet is a demo home's street line as a person record writes it: "7006 Maple Rd", "1679 15th Ave Apt 1A".
func demoStreet(h property.Home) string {
	s := h.Street
	if h.Unit != "" {
		s += " " + strings.TrimSpace(h.UnitType+" "+h.Unit)
	}
	return s
}
