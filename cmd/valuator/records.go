package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"valuator/internal/avm"
	"valuator/internal/person"
	"valuator/internal/property"
	"valuator/internal/store"
	"valuator/internal/valuation"
)

// mapFlag parses --map field=Column,field=Column.
type mapFlag map[string]string

func (m mapFlag) String() string { return fmt.Sprint(map[string]string(m)) }

func (m mapFlag) Set(v string) error {
	for _, pair := range strings.Split(v, ",") {
		field, col, ok := strings.Cut(pair, "=")
		if !ok || strings.TrimSpace(field) == "" || strings.TrimSpace(col) == "" {
			return fmt.Errorf("%q is not field=Column", pair)
		}
		m[strings.TrimSpace(field)] = strings.TrimSpace(col)
	}
	return nil
}

const importUsage = `Usage: valuator import sales FILE --format kingcounty|sacramento|csv [--source NAME] [--map field=Column,...]
       valuator import people FILE --format csv [--map field=Column,...]

People: loads a directory of people for person lookup (the local provider). Columns are found by their headers;
--map names them: fields are ` + "first_name, middle_name, last_name (or name), street_line_1, street_line_2, city, state, zip, phone, line_type, email, age_range, gender, latitude, longitude, associated." + `
People who opted out are skipped. Importing the same person again replaces their record.

Sales:

Loads property records and sales (and rents, for CSVs with a rent column) into the database, then trains the
valuation engine on the whole market. Bad rows are reported with their line numbers and skipped. Importing the
same file twice adds nothing. For --format csv, columns are guessed from their headers; --map names them:
fields are ` + "id, address, street, unit, city, state, zip, lat, lon, type, beds, baths, sqft, lot_sqft, year_built, sale_date, price, rent." + `
`

func runImport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) >= 2 && args[0] == "people" {
		return runImportPeople(ctx, args[1], args[2:], getenv, stdout, stderr)
	}
	if len(args) < 2 || args[0] != "sales" {
		fmt.Fprint(stderr, importUsage)
		return errors.New("import needs: sales FILE or people FILE")
	}
	file := args[1]
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "", "kingcounty, sacramento or csv")
	source := fs.String("source", "", "a name for this data source (default: the format, or the file name for csv)")
	mapping := mapFlag{}
	fs.Var(mapping, "map", "field=Column pairs for --format csv")
	train := fs.Bool("train", true, "train the valuation engine after the import")
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	if *format == "" {
		fmt.Fprint(stderr, importUsage)
		return errors.New("--format is required")
	}
	if *source == "" {
		*source = *format
		if *format == property.FormatCSV {
			*source = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		}
	}
	if *source == "demo" {
		return errors.New(`the source name "demo" is reserved for the generated demo market`)
	}
	cfg, log, err := loadConfig("import", nil, getenv, stderr)
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()

	started := time.Now()
	var batch []property.Record
	var total store.ImportStats
	rows, bad := 0, 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		st, err := db.ImportRecords(ctx, *source, batch, time.Now())
		if err != nil {
			return err
		}
		total.Add(st)
		batch = batch[:0]
		fmt.Fprintf(stderr, "\r%d rows read, %d imported, %d bad", rows+bad, rows, bad)
		return nil
	}
	err = property.Read(f, property.Options{Format: *format, Mapping: mapping},
		func(r property.Record) error {
			rows++
			batch = append(batch, r)
			if len(batch) >= 1000 {
				return flush()
			}
			return nil
		},
		func(e property.RowError) {
			bad++
			if bad <= 50 {
				fmt.Fprintf(stderr, "\rskipped %v\n", e)
			} else if bad == 51 {
				fmt.Fprintln(stderr, "\r(further bad rows are counted, not listed)")
			}
		})
	if err == nil {
		err = flush()
	}
	fmt.Fprintln(stderr)
	if err != nil {
		return fmt.Errorf("import stopped: %w (rows before this batch are kept)", err)
	}
	fmt.Fprintf(stdout, "imported %s from %s in %.1fs: %d rows, %d skipped as bad; %d homes created, %d updated, %d sales and %d rents added, %d already on record\n",
		*source, file, time.Since(started).Seconds(), rows, bad, total.PropertiesCreated, total.PropertiesUpdated,
		total.SalesAdded, total.RentalsAdded, total.Duplicates)
	if !*train {
		return nil
	}
	fmt.Fprintln(stdout, "training the valuation engine on the whole market...")
	started = time.Now()
	svc := valuation.New(db, log, nil, avm.DefaultOptions())
	if err := svc.Load(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "valuation engine ready in %.1fs\n", time.Since(started).Seconds())
	return nil
}

// runImportPeople loads a CSV of people into the local directory, listing bad rows by line.
func runImportPeople(ctx context.Context, file string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import people", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "csv", "csv")
	mapping := mapFlag{}
	fs.Var(mapping, "map", "field=Column pairs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *format != "csv" {
		return errors.New("--format must be csv for people")
	}
	cfg, _, err := loadConfig("import", nil, getenv, stderr)
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	people, bad, err := person.ParseCSV(f, mapping)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for i, e := range bad {
		if i == 50 {
			fmt.Fprintf(stderr, "(%d further bad rows are counted, not listed)\n", len(bad)-50)
			break
		}
		fmt.Fprintf(stderr, "skipped %v\n", e)
	}
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	stored, optedOut, err := db.ImportPeople(ctx, "directory", people, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d people from %s; %d rows skipped as bad, %d people skipped because they opted out\n",
		stored, file, len(bad), optedOut)
	return nil
}

const evalUsage = `Usage: valuator eval --data FILE --format kingcounty|sacramento|csv --cut YYYY-MM-DD [--zip-level|--paths] [--seed N]

Runs the accuracy protocol of ../shared/data/README.md: trains on every sale dated before the cut and values every
sale on or after it, then prints MdAPE, MAPE, PPE5/10/20, coverage, the 80% interval's coverage and the calibration
of the stated confidence by decile. With --zip-level the test homes are valued as addresses not on record (at
their ZIP code's centre, with or without their main attributes); with --paths on every path a lookup can take
(as recorded, from type and size alone, from more facts, as a unit of its building), with each path's FSD
calibration by decile. It also prints the assessors' ratio study (COD, PRD, PRB). --seed N trains with another
random seed, to measure the run-to-run spread. Nothing is written to the database.
`

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "the sales file")
	format := fs.String("format", "", "kingcounty, sacramento or csv")
	cutS := fs.String("cut", "", "first day of the test period (YYYY-MM-DD)")
	zipLevel := fs.Bool("zip-level", false, "value the test homes as addresses not on record")
	paths := fs.Bool("paths", false, "value the test homes on every path (as recorded, from their type and size, from "+
		"more facts, as units of their building) and print each path's calibration")
	seed := fs.Uint64("seed", 1, "the models' random seed (another seed measures the run-to-run spread)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || *format == "" || *cutS == "" {
		fmt.Fprint(stderr, evalUsage)
		return errors.New("--data, --format and --cut are required")
	}
	cut, err := time.Parse("2006-01-02", *cutS)
	if err != nil {
		return fmt.Errorf("--cut %q is not a date like 2015-02-01", *cutS)
	}
	f, err := os.Open(*data)
	if err != nil {
		return err
	}
	defer f.Close()
	var recs []property.Record
	bad := 0
	if err := property.Read(f, property.Options{Format: *format},
		func(r property.Record) error { recs = append(recs, r); return nil },
		func(property.RowError) { bad++ }); err != nil {
		return err
	}
	market, tests := valuation.Split(recs, cut)
	fmt.Fprintf(stdout, "%s: %d rows (%d bad)\n%s\n", *data, len(recs)+bad, bad, valuation.Describe(market, tests))
	if len(tests) == 0 {
		return errors.New("no sales on or after the cut")
	}
	started := time.Now()
	opt := avm.DefaultOptions()
	opt.Model.Seed = *seed
	engine, err := avm.Train(market, opt)
	if err != nil {
		return err
	}
	info := engine.Info()
	how := fmt.Sprintf("on %d held-out valuations of recorded homes and %d of addresses not on record, made after the data (up to %.1f months ahead)",
		info.HeldOut, info.HeldOutApprox, info.HorizonMonths)
	if !info.TimeForward {
		how = fmt.Sprintf("on the out-of-fold errors of %d market sales (too little history for a holdout after the data)", info.HeldOut)
	}
	fmt.Fprintf(stdout, "trained in %.1fs: %d models, trend %+.2f%%/month past the data, comparables blend %.1f, size elasticity %.2f;\ncalibrated %s\n",
		time.Since(started).Seconds(), info.Models, 100*info.TrendPerMonth, info.Blend, info.SizeElasticity, how)
	levels := map[string]int{}
	for _, a := range info.Areas {
		levels[a.Level]++
	}
	fmt.Fprintf(stdout, "price index: the whole market %+.1f%% over the 12 months to %s; own indexes for %d metros, %d areas, %d ZIP codes\n",
		100*info.Change12m, info.DataEnd.AddDate(0, 0, -1).Format("2006-01"), levels[avm.LevelMetro], levels[avm.LevelArea], levels[avm.LevelZIP])
	for _, p := range info.Paths {
		note := ""
		if p.Thin {
			note = ": too few, borrows its pool's (FSD at least 15%)"
			if p.Widen > 1 {
				note += fmt.Sprintf(", widened %.2fx by its own errors", p.Widen)
			}
		}
		fmt.Fprintf(stdout, "  path %s: %d held-out valuations%s\n", p.Path, p.HeldOut, note)
	}
	switch {
	case *paths:
		tests = valuation.PathTests(tests)
		fmt.Fprintln(stdout, "valuing the test homes on every path: as recorded, from their type and size, from more facts, as units")
	case *zipLevel:
		tests = valuation.ApproxTests(tests)
		fmt.Fprintln(stdout, "valuing the test homes as addresses not on record (ZIP centre)")
	}
	started = time.Now()
	report := engine.Evaluate(tests)
	fmt.Fprintf(stdout, "valued %d sales in %.1fs\n\n", report.Valued, time.Since(started).Seconds())
	report.Print(stdout)
	return nil
}
