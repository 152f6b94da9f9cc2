package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"valuator/internal/property"
)

// ImportStats counts what an import batch changed.
type ImportStats struct {
	PropertiesCreated int
	PropertiesUpdated int
	SalesAdded        int
	RentalsAdded      int
	Duplicates        int // sales or rents already on record
}

// Add sums two counts.
func (s *ImportStats) Add(o ImportStats) {
	s.PropertiesCreated += o.PropertiesCreated
	s.PropertiesUpdated += o.PropertiesUpdated
	s.SalesAdded += o.SalesAdded
	s.RentalsAdded += o.RentalsAdded
	s.Duplicates += o.Duplicates
}

// dateArg stores a calendar date: text YYYY-MM-DD on SQLite, a DATE on PostgreSQL.
func (x q) date(t time.Time) any {
	if x.d == SQLite {
		return t.UTC().Format("2006-01-02")
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// num stores an unknown (NaN) number as NULL.
func num(v float64) any {
	if v != v || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// nullNum scans a nullable number, NULL becoming NaN.
type nullNum struct{ v *float64 }

func (n nullNum) Scan(src any) error {
	var f sql.NullFloat64
	if err := f.Scan(src); err != nil {
		return err
	}
	if f.Valid {
		*n.v = f.Float64
	} else {
		*n.v = math.NaN()
	}
	return nil
}

// ImportRecords writes one batch of imported records in a single transaction: each record's home is found by its
// source id or, failing that, by its address keys, and created or updated; its sale and rent are added unless
// already on record (an import can be run twice).
func (db *DB) ImportRecords(ctx context.Context, source string, recs []property.Record, at time.Time) (ImportStats, error) {
	var st ImportStats
	err := db.tx(ctx, func(x q) error {
		st = ImportStats{}
		for i := range recs {
			r := &recs[i]
			id, created, err := upsertHome(ctx, x, source, &r.Home, at)
			if err != nil {
				return fmt.Errorf("line %d: %w", r.Line, err)
			}
			if created {
				st.PropertiesCreated++
			} else {
				st.PropertiesUpdated++
			}
			if r.Price > 0 {
				res, err := x.exec(ctx, `INSERT INTO sales (property_id, sale_date, price, source, created_at)
					VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, id, x.date(r.SaleDate), r.Price, source, x.t(at))
				if err != nil {
					return fmt.Errorf("line %d: sale: %w", r.Line, err)
				}
				if n, _ := res.RowsAffected(); n > 0 {
					st.SalesAdded++
				} else {
					st.Duplicates++
				}
			}
			if r.Rent > 0 {
				res, err := x.exec(ctx, `INSERT INTO rentals (property_id, listed_date, rent, source, created_at)
					VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, id, x.date(r.SaleDate), r.Rent, source, x.t(at))
				if err != nil {
					return fmt.Errorf("line %d: rent: %w", r.Line, err)
				}
				if n, _ := res.RowsAffected(); n > 0 {
					st.RentalsAdded++
				} else {
					st.Duplicates++
				}
			}
		}
		return nil
	})
	return st, err
}

const homeColumns = `source, external_id, street, unit_type, unit, city, state, zip, street_key, unit_key, name_key,
	lat, lon, county, property_type, beds, baths, sqft, lot_sqft, floors, year_built, year_renovated, grade,
	condition, view, waterfront, sqft_above, sqft_basement, nbr_sqft, nbr_lot, image_url`

func homeArgs(source string, h *property.Home) []any {
	var ext any
	if h.ExternalID != "" {
		ext = h.ExternalID
	}
	return []any{source, ext, h.Street, h.UnitType, h.Unit, h.City, h.State, h.ZIP, h.StreetKey, h.UnitKey,
		h.NameKey, num(h.Lat), num(h.Lon), h.County, h.Type, num(h.Beds), num(h.Baths), num(h.Sqft), num(h.LotSqft),
		num(h.Floors), num(h.YearBuilt), num(h.YearRenov), num(h.Grade), num(h.Condition), num(h.View),
		num(h.Water), num(h.SqftAbove), num(h.SqftBase), num(h.NbrSqft), num(h.NbrLot), h.ImageURL}
}

// upsertHome finds the record of h (by source id, else by address) and updates it, or creates it.
func upsertHome(ctx context.Context, x q, source string, h *property.Home, at time.Time) (int64, bool, error) {
	var id int64
	var err error
	switch {
	case h.ExternalID != "":
		err = x.row(ctx, `SELECT id FROM properties WHERE source = ? AND external_id = ?`, source, h.ExternalID).Scan(&id)
	case h.StreetKey != "":
		// street_key <> '' repeats the partial index's condition, so the planner can use the index (it cannot
		// prove that a parameter is not empty).
		err = x.row(ctx, `SELECT id FROM properties WHERE zip = ? AND street_key = ? AND unit_key = ? AND street_key <> ''`,
			h.ZIP, h.StreetKey, h.UnitKey).Scan(&id)
	default:
		return 0, false, errors.New("a record needs a source id or a street address")
	}
	args := homeArgs(source, h)
	if errors.Is(err, sql.ErrNoRows) {
		err = x.row(ctx, `INSERT INTO properties (`+homeColumns+`, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING id`, append(args, x.t(at), x.t(at))...).Scan(&id)
		return id, true, err
	}
	if err != nil {
		return 0, false, err
	}
	// Newer records win, except that an unknown value never erases a known one.
	_, err = x.exec(ctx, `UPDATE properties SET
		street = CASE WHEN ? <> '' THEN ? ELSE street END,
		lat = COALESCE(?, lat), lon = COALESCE(?, lon), county = CASE WHEN ? <> '' THEN ? ELSE county END,
		property_type = CASE WHEN ? <> '' THEN ? ELSE property_type END,
		beds = COALESCE(?, beds), baths = COALESCE(?, baths), sqft = COALESCE(?, sqft),
		lot_sqft = COALESCE(?, lot_sqft), floors = COALESCE(?, floors), year_built = COALESCE(?, year_built),
		year_renovated = COALESCE(?, year_renovated), grade = COALESCE(?, grade), condition = COALESCE(?, condition),
		view = COALESCE(?, view), waterfront = COALESCE(?, waterfront), sqft_above = COALESCE(?, sqft_above),
		sqft_basement = COALESCE(?, sqft_basement), nbr_sqft = COALESCE(?, nbr_sqft), nbr_lot = COALESCE(?, nbr_lot),
		image_url = CASE WHEN ? <> '' THEN ? ELSE image_url END, updated_at = ?
		WHERE id = ?`,
		h.Street, h.Street, num(h.Lat), num(h.Lon), h.County, h.County, h.Type, h.Type, num(h.Beds), num(h.Baths),
		num(h.Sqft), num(h.LotSqft), num(h.Floors), num(h.YearBuilt), num(h.YearRenov), num(h.Grade),
		num(h.Condition), num(h.View), num(h.Water), num(h.SqftAbove), num(h.SqftBase), num(h.NbrSqft),
		num(h.NbrLot), h.ImageURL, h.ImageURL, x.t(at), id)
	return id, false, err
}

// MarketData is every record the valuation engine learns from.
type MarketData struct {
	Homes   []property.Home
	Sales   []property.Sale
	Rentals []property.Rental
}

// LoadMarket reads every property, sale and rent, ordered by id.
func (db *DB) LoadMarket(ctx context.Context) (MarketData, error) {
	var md MarketData
	// Counted first so that each slice is allocated once, at its size (growing a million homes by appending would
	// copy them several times and leave up to a quarter of the last allocation unused).
	err := db.EachMarket(ctx, MarketVisitor{
		Counts: func(np, ns, nr int) {
			md.Homes, md.Sales, md.Rentals = make([]property.Home, 0, np), make([]property.Sale, 0, ns),
				make([]property.Rental, 0, nr)
		},
		Home:   func(h *property.Home) { md.Homes = append(md.Homes, *h) },
		Sale:   func(s property.Sale) { md.Sales = append(md.Sales, s) },
		Rental: func(r property.Rental) { md.Rentals = append(md.Rentals, r) },
	})
	return md, err
}

// MarketVisitor receives what EachMarket reads: the counts first, then every property, every sale and every rent,
// each ordered by id. Home's h is reused for the next property (its strings are not).
type MarketVisitor struct {
	Counts func(homes, sales, rents int)
	Home   func(h *property.Home)
	Sale   func(s property.Sale)
	Rental func(r property.Rental)
}

// EachMarket reads what LoadMarket reads without holding it: a server that keeps the records in another form
// never holds them all as read (issue 39: at a million homes about 500 MB at the peak of a start).
func (db *DB) EachMarket(ctx context.Context, v MarketVisitor) error {
	return db.eachMarket(ctx, false, "", v)
}

// EachMarketOf reads the records of one partition of the market, the homes of one state (issue 39: a partition
// trains on its own records, and an instance reads only those of the partitions it loads), as EachMarket does:
// the state's homes, their sales and their rents, each ordered by id.
func (db *DB) EachMarketOf(ctx context.Context, state string, v MarketVisitor) error {
	return db.eachMarket(ctx, true, state, v)
}

// eachMarket is EachMarket, of one state's records when only is set.
func (db *DB) eachMarket(ctx context.Context, only bool, part string, v MarketVisitor) error {
	x := db.q()
	// The sales and rents of a state are those of its homes (properties_state finds them, the property_id
	// indexes of sales and rentals their records).
	homes, sales, rents := `FROM properties`, `FROM sales`, `FROM rentals`
	var args []any
	if only {
		homes = `FROM properties WHERE state = ?`
		sales = `FROM sales WHERE property_id IN (SELECT id FROM properties WHERE state = ?)`
		rents = `FROM rentals WHERE property_id IN (SELECT id FROM properties WHERE state = ?)`
		args = []any{part}
	}
	var np, ns, nr int
	if err := x.row(ctx, `SELECT (SELECT COUNT(*) `+homes+`), (SELECT COUNT(*) `+sales+`),
		(SELECT COUNT(*) `+rents+`)`, append(append(append([]any{}, args...), args...), args...)...).Scan(&np, &ns, &nr); err != nil {
		return err
	}
	v.Counts(np, ns, nr)
	rows, err := x.query(ctx, `SELECT id, `+homeColumns+` `+homes+` ORDER BY id`, args...)
	if err != nil {
		return err
	}
	// The columns that repeat across homes (a market has a few sources, cities, ZIP codes, types and images) are
	// read into one shared string per value: a million homes would otherwise hold eight million small copies.
	var in interner
	var source, unitType, city, state, zip, county, typ, image sql.RawBytes
	err = scanPiped(rows, func(h *property.Home) error {
		*h = property.NewHome()
		var ext sql.NullString
		if err := rows.Scan(&h.ID, &source, &ext, &h.Street, &unitType, &h.Unit, &city, &state, &zip,
			&h.StreetKey, &h.UnitKey, &h.NameKey, nullNum{&h.Lat}, nullNum{&h.Lon}, &county, &typ,
			nullNum{&h.Beds}, nullNum{&h.Baths}, nullNum{&h.Sqft}, nullNum{&h.LotSqft}, nullNum{&h.Floors},
			nullNum{&h.YearBuilt}, nullNum{&h.YearRenov}, nullNum{&h.Grade}, nullNum{&h.Condition},
			nullNum{&h.View}, nullNum{&h.Water}, nullNum{&h.SqftAbove}, nullNum{&h.SqftBase}, nullNum{&h.NbrSqft},
			nullNum{&h.NbrLot}, &image); err != nil {
			return err
		}
		h.Source, h.UnitType, h.City, h.State, h.ZIP = in.of(source), in.of(unitType), in.of(city), in.of(state), in.of(zip)
		h.County, h.Type, h.ImageURL = in.of(county), in.of(typ), in.of(image)
		h.ExternalID = ext.String
		return nil
	}, v.Home)
	rows.Close()
	if err != nil {
		return err
	}
	rows, err = x.query(ctx, `SELECT id, property_id, sale_date, price `+sales+` ORDER BY id`, args...)
	if err != nil {
		return err
	}
	err = scanPiped(rows, func(s *property.Sale) error {
		*s = property.Sale{}
		var d dbDate
		if err := rows.Scan(&s.ID, &s.PropertyID, &d, &s.Price); err != nil {
			return err
		}
		s.Date = d.Time
		return nil
	}, func(s *property.Sale) { v.Sale(*s) })
	rows.Close()
	if err != nil {
		return err
	}
	rows, err = x.query(ctx, `SELECT id, property_id, listed_date, rent `+rents+` ORDER BY id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return scanPiped(rows, func(r *property.Rental) error {
		*r = property.Rental{}
		var d dbDate
		if err := rows.Scan(&r.ID, &r.PropertyID, &d, &r.Rent); err != nil {
			return err
		}
		r.Date = d.Time
		return nil
	}, func(r *property.Rental) { v.Rental(*r) })
}

// scanPiped reads rows (scan: the current row into a T) in a goroutine while visit takes each row here, in the
// rows' order: reading the database and building what is kept of the records then use a core each, where one core
// did both in turn (a restart of ten million homes spent 145 s reading them, issue 39). Rows go over in batches,
// which are used again once visited: visit must not keep the pointer it is given. It returns the first error of
// scan or of the rows (its query's context ending among them), after the rows read before it were visited.
func scanPiped[T any](rows *sql.Rows, scan func(*T) error, visit func(*T)) error {
	const size = 512
	full := make(chan []T, 4)
	free := make(chan []T, 5) // the batches visited, for the reader to fill again (the reader makes more if none)
	errc := make(chan error, 1)
	go func() {
		defer close(full)
		b := make([]T, 0, size)
		for rows.Next() {
			b = b[:len(b)+1]
			if err := scan(&b[len(b)-1]); err != nil {
				full <- b[:len(b)-1]
				errc <- err
				return
			}
			if len(b) == size {
				full <- b
				select {
				case b = <-free:
					b = b[:0]
				default:
					b = make([]T, 0, size)
				}
			}
		}
		full <- b
		errc <- rows.Err()
	}()
	for b := range full {
		for i := range b {
			visit(&b[i])
		}
		select {
		case free <- b:
		default:
		}
	}
	return <-errc
}

// interner hands out one string per distinct value.
type interner map[string]string

func (in *interner) of(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := (*in)[string(b)]; ok { // the lookup does not copy b
		return s
	}
	if *in == nil {
		*in = map[string]string{}
	}
	s := string(b)
	(*in)[s] = s
	return s
}

// MarketVersion is a cheap summary that changes whenever records are added or changed: instances compare it to
// notice another instance's import.
func (db *DB) MarketVersion(ctx context.Context) (string, error) {
	var np, ns, nr int64
	var maxUpdated dbTime
	err := db.q().row(ctx, `SELECT (SELECT COUNT(*) FROM properties), (SELECT COUNT(*) FROM sales),
		(SELECT COUNT(*) FROM rentals), (SELECT MAX(updated_at) FROM properties)`).Scan(&np, &ns, &nr, &maxUpdated)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%d/%d/%s", np, ns, nr, maxUpdated.Time.Format(time.RFC3339Nano)), nil
}

// PartVersions is MarketVersion for each state (the market's partitions, issue 39): the version of a state changes
// whenever its records are added or changed, so an instance reloads (and retrains) only the states an import
// touched. It reads every record's state once, so it is called only when MarketVersion has changed.
func (db *DB) PartVersions(ctx context.Context) (map[string]string, error) {
	x := db.q()
	out := map[string]string{}
	counts := map[string][2]int64{}
	for i, table := range []string{"sales", "rentals"} {
		rows, err := x.query(ctx, `SELECT p.state, COUNT(*) FROM `+table+` t JOIN properties p ON p.id = t.property_id
			GROUP BY p.state`)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var st string
			var n int64
			if err := rows.Scan(&st, &n); err != nil {
				rows.Close()
				return nil, err
			}
			c := counts[st]
			c[i] = n
			counts[st] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	rows, err := x.query(ctx, `SELECT state, COUNT(*), MAX(updated_at) FROM properties GROUP BY state`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var st string
		var n int64
		var maxUpdated dbTime
		if err := rows.Scan(&st, &n, &maxUpdated); err != nil {
			return nil, err
		}
		c := counts[st]
		out[st] = fmt.Sprintf("%s:%d/%d/%d/%s", st, n, c[0], c[1], maxUpdated.Time.Format(time.RFC3339Nano))
	}
	return out, rows.Err()
}

// CountProperties counts property records.
func (db *DB) CountProperties(ctx context.Context) (int64, error) {
	var n int64
	err := db.q().row(ctx, `SELECT COUNT(*) FROM properties`).Scan(&n)
	return n, err
}

// SaveModel keeps a trained engine of the whole market under the fingerprint of its records (SaveModelOf).
func (db *DB) SaveModel(ctx context.Context, fingerprint string, version int, blob []byte, at time.Time) error {
	return db.SaveModelOf(ctx, "", fingerprint, version, blob, at)
}

// SaveModelOf keeps a trained engine of one partition of the market (part: a state; "" the whole market) under
// the fingerprint of the records it learned from, pruning all but the partition's newest three. Saving a
// fingerprint already saved does nothing (two workers that trained the same records saved the same engine).
func (db *DB) SaveModelOf(ctx context.Context, part, fingerprint string, version int, blob []byte, at time.Time) error {
	return db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `INSERT INTO avm_models (market_part, fingerprint, version, engine, created_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (fingerprint) DO NOTHING`, part, fingerprint, version, blob, x.t(at)); err != nil {
			return err
		}
		_, err := x.exec(ctx, `DELETE FROM avm_models WHERE market_part = ? AND id NOT IN
			(SELECT id FROM avm_models WHERE market_part = ? ORDER BY id DESC LIMIT 3)`, part, part)
		return err
	})
}

// ErrNoModel means no engine was saved for a market.
var ErrNoModel = errors.New("no saved model")

// LoadModel returns the engine saved for the fingerprint and version.
func (db *DB) LoadModel(ctx context.Context, fingerprint string, version int) ([]byte, error) {
	var blob []byte
	err := db.q().row(ctx, `SELECT engine FROM avm_models WHERE fingerprint = ? AND version = ?`,
		fingerprint, version).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoModel
	}
	return blob, err
}

// dbDate scans a calendar date from either dialect.
type dbDate struct{ Time time.Time }

func (d *dbDate) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		d.Time = time.Date(v.Year(), v.Month(), v.Day(), 0, 0, 0, 0, time.UTC)
		return nil
	case string:
		return d.parse(v)
	case []byte:
		return d.parse(string(v))
	default:
		return fmt.Errorf("cannot scan %T into a date", src)
	}
}

func (d *dbDate) parse(s string) error {
	if len(s) >= 10 {
		if t, err := time.Parse("2006-01-02", s[:10]); err == nil {
			d.Time = t
			return nil
		}
	}
	return fmt.Errorf("cannot parse date %q", s)
}

// DeleteSource removes every record of one source (its rents, sales and homes), in one transaction. Saved engines
// are kept: they are only ever restored for an identical market.
func (db *DB) DeleteSource(ctx context.Context, source string) (int64, error) {
	var n int64
	err := db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `DELETE FROM rentals WHERE property_id IN (SELECT id FROM properties WHERE source = ?)`, source); err != nil {
			return err
		}
		if _, err := x.exec(ctx, `DELETE FROM sales WHERE property_id IN (SELECT id FROM properties WHERE source = ?)`, source); err != nil {
			return err
		}
		res, err := x.exec(ctx, `DELETE FROM properties WHERE source = ?`, source)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// CountSource counts the homes of one source.
func (db *DB) CountSource(ctx context.Context, source string) (int64, error) {
	var n int64
	err := db.q().row(ctx, `SELECT COUNT(*) FROM properties WHERE source = ?`, source).Scan(&n)
	return n, err
}
