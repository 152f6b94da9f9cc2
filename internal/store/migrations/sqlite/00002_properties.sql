-- +goose Up
-- Property records, their sales and rents: what the valuation engine learns from. Unknown numbers are NULL.

CREATE TABLE properties (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    source         TEXT    NOT NULL,
    external_id    TEXT,
    street         TEXT    NOT NULL DEFAULT '',
    unit_type      TEXT    NOT NULL DEFAULT '',
    unit           TEXT    NOT NULL DEFAULT '',
    city           TEXT    NOT NULL DEFAULT '',
    state          TEXT    NOT NULL DEFAULT '',
    zip            TEXT    NOT NULL DEFAULT '',
    -- address keys (internal/address) that match differently written forms of one address
    street_key     TEXT    NOT NULL DEFAULT '',
    unit_key       TEXT    NOT NULL DEFAULT '',
    name_key       TEXT    NOT NULL DEFAULT '',
    lat            REAL,
    lon            REAL,
    county         TEXT    NOT NULL DEFAULT '',
    property_type  TEXT    NOT NULL DEFAULT '',
    beds           REAL,
    baths          REAL,
    sqft           REAL,
    lot_sqft       REAL,
    floors         REAL,
    year_built     REAL,
    year_renovated REAL,
    grade          REAL,
    condition      REAL,
    view           REAL,
    waterfront     REAL,
    sqft_above     REAL,
    sqft_basement  REAL,
    nbr_sqft       REAL,
    nbr_lot        REAL,
    image_url      TEXT    NOT NULL DEFAULT '',
    created_at     TEXT    NOT NULL,
    updated_at     TEXT    NOT NULL
);
CREATE UNIQUE INDEX properties_external ON properties (source, external_id) WHERE external_id IS NOT NULL;
-- One record per address: the same street key and unit in one ZIP is the same home.
CREATE UNIQUE INDEX properties_address ON properties (zip, street_key, unit_key) WHERE street_key <> '';
CREATE INDEX properties_name ON properties (zip, name_key) WHERE name_key <> '';

CREATE TABLE sales (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    property_id INTEGER NOT NULL REFERENCES properties(id),
    sale_date   TEXT    NOT NULL, -- YYYY-MM-DD
    price       INTEGER NOT NULL, -- whole dollars
    source      TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    UNIQUE (property_id, sale_date, price)
);

CREATE TABLE rentals (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    property_id INTEGER NOT NULL REFERENCES properties(id),
    listed_date TEXT    NOT NULL,
    rent        INTEGER NOT NULL, -- whole dollars a month
    source      TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    UNIQUE (property_id, listed_date, rent)
);
CREATE INDEX rentals_property ON rentals (property_id);

-- A trained valuation engine, kept so that a restart does not retrain; fingerprint identifies the market data it
-- learned from.
CREATE TABLE avm_models (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    fingerprint TEXT    NOT NULL UNIQUE,
    version     INTEGER NOT NULL,
    engine      BLOB    NOT NULL,
    created_at  TEXT    NOT NULL
);

-- +goose Down
DROP TABLE avm_models;
DROP TABLE rentals;
DROP TABLE sales;
DROP TABLE properties;
