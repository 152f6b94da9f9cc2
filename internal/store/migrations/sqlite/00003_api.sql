-- +goose Up
-- API keys of the public API, and the record of every call that cost or could have cost credits.

CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      INTEGER NOT NULL REFERENCES users(id),
    name         TEXT    NOT NULL,
    -- SHA-256 of the key, for lookup; the key itself only encrypted (AES-GCM with the server secret) for the copy
    -- button
    key_hash     TEXT    NOT NULL UNIQUE,
    key_enc      BLOB    NOT NULL,
    key_preview  TEXT    NOT NULL,
    rate_limit   INTEGER NOT NULL,
    created_at   TEXT    NOT NULL,
    last_used_at TEXT,
    deleted_at   TEXT
);
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE usage_records (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id          INTEGER NOT NULL REFERENCES users(id),
    api_key_id       INTEGER REFERENCES api_keys(id),
    -- the key's name when the call was made; it outlives the key
    api_key_name     TEXT,
    endpoint         TEXT    NOT NULL,
    service          TEXT    NOT NULL,
    property_address TEXT,
    response_status  INTEGER NOT NULL,
    response_time_ms INTEGER NOT NULL,
    credits_used     INTEGER NOT NULL DEFAULT 0,
    valuation        INTEGER,
    request_data     TEXT,
    request_id       TEXT    NOT NULL,
    created_at       TEXT    NOT NULL
);
CREATE INDEX usage_records_user ON usage_records (user_id, id);
CREATE INDEX usage_records_user_time ON usage_records (user_id, created_at);

-- A paid plan's overage is allowed up to this many cents (NULL: no limit).
ALTER TABLE users ADD COLUMN overage_limit_cents INTEGER;

-- +goose Down
ALTER TABLE users DROP COLUMN overage_limit_cents;
DROP TABLE usage_records;
DROP TABLE api_keys;
