-- +goose Up
-- Property records, their sales and rents: what the valuation engine learns from. Unknown numbers are NULL.

CREATE TABLE properties (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source         TEXT        NOT NULL,
    external_id    TEXT,
    street         TEXT        NOT NULL DEFAULT '',
    unit_type      TEXT        NOT NULL DEFAULT '',
    unit           TEXT        NOT NULL DEFAULT '',
    city           TEXT        NOT NULL DEFAULT '',
    state          TEXT        NOT NULL DEFAULT '',
    zip            TEXT        NOT NULL DEFAULT '',
    -- address keys (internal/address) that match differently written forms of one address
    street_key     TEXT        NOT NULL DEFAULT '',
    unit_key       TEXT        NOT NULL DEFAULT '',
    name_key       TEXT        NOT NULL DEFAULT '',
    lat            DOUBLE PRECISION,
    lon            DOUBLE PRECISION,
    county         TEXT        NOT NULL DEFAULT '',
    property_type  TEXT        NOT NULL DEFAULT '',
    beds           DOUBLE PRECISION,
    baths          DOUBLE PRECISION,
    sqft           DOUBLE PRECISION,
    lot_sqft       DOUBLE PRECISION,
    floors         DOUBLE PRECISION,
    year_built     DOUBLE PRECISION,
    year_renovated DOUBLE PRECISION,
    grade          DOUBLE PRECISION,
    condition      DOUBLE PRECISION,
    view           DOUBLE PRECISION,
    waterfront     DOUBLE PRECISION,
    sqft_above     DOUBLE PRECISION,
    sqft_basement  DOUBLE PRECISION,
    nbr_sqft       DOUBLE PRECISION,
    nbr_lot        DOUBLE PRECISION,
    image_url      TEXT        NOT NULL DEFAULT '',
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX properties_external ON properties (source, external_id) WHERE external_id IS NOT NULL;
-- One record per address: the same street key and unit in one ZIP is the same home.
CREATE UNIQUE INDEX properties_address ON properties (zip, street_key, unit_key) WHERE street_key <> '';
CREATE INDEX properties_name ON properties (zip, name_key) WHERE name_key <> '';

CREATE TABLE sales (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    property_id BIGINT      NOT NULL REFERENCES properties(id),
    sale_date   DATE        NOT NULL,
    price       BIGINT      NOT NULL, -- whole dollars
    source      TEXT        NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (property_id, sale_date, price)
);

CREATE TABLE rentals (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    property_id BIGINT      NOT NULL REFERENCES properties(id),
    listed_date DATE        NOT NULL,
    rent        BIGINT      NOT NULL, -- whole dollars a month
    source      TEXT        NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    UNIQUE (property_id, listed_date, rent)
);
CREATE INDEX rentals_property ON rentals (property_id);

-- A trained valuation engine, kept so that a restart does not retrain; fingerprint identifies the market data it
-- learned from.
CREATE TABLE avm_models (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fingerprint TEXT        NOT NULL UNIQUE,
    version     INTEGER     NOT NULL,
    engine      BYTEA       NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE avm_models;
DROP TABLE rentals;
DROP TABLE sales;
DROP TABLE properties;
