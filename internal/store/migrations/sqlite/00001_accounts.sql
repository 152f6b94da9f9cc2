-- +goose Up
-- Times are stored as fixed-width UTC text (2006-01-02T15:04:05.000000Z) so they compare correctly as strings.

CREATE TABLE users (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    email                TEXT    NOT NULL,
    -- lower-cased email for case-insensitive uniqueness; NULL once the account is closed, which frees the address
    email_key            TEXT    UNIQUE,
    password_hash        TEXT    NOT NULL,
    full_name            TEXT    NOT NULL,
    company              TEXT    NOT NULL DEFAULT '',
    plan                 TEXT    NOT NULL DEFAULT 'free',
    -- the balance; changed only together with a credit_ledger row (store.postCredit)
    credits              INTEGER NOT NULL DEFAULT 0,
    total_credits_earned INTEGER NOT NULL DEFAULT 0,
    notify_email         INTEGER NOT NULL DEFAULT 1,
    notify_usage         INTEGER NOT NULL DEFAULT 1,
    notify_weekly        INTEGER NOT NULL DEFAULT 0,
    notify_marketing     INTEGER NOT NULL DEFAULT 0,
    created_at           TEXT    NOT NULL,
    updated_at           TEXT    NOT NULL,
    closed_at            TEXT
);

CREATE TABLE credit_ledger (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id       INTEGER NOT NULL REFERENCES users(id),
    amount        INTEGER NOT NULL,
    balance_after INTEGER NOT NULL,
    kind          TEXT    NOT NULL,
    description   TEXT    NOT NULL,
    reference     TEXT    NOT NULL DEFAULT '',
    created_at    TEXT    NOT NULL
);
CREATE INDEX credit_ledger_user ON credit_ledger (user_id, id);

-- The ledger is append-only: history is never rewritten, corrections are new rows.
-- +goose StatementBegin
CREATE TRIGGER credit_ledger_no_update BEFORE UPDATE ON credit_ledger
BEGIN
    SELECT RAISE(ABORT, 'credit_ledger is append-only');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER credit_ledger_no_delete BEFORE DELETE ON credit_ledger
BEGIN
    SELECT RAISE(ABORT, 'credit_ledger is append-only');
END;
-- +goose StatementEnd

CREATE TABLE sessions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      INTEGER NOT NULL REFERENCES users(id),
    token_hash   TEXT    NOT NULL UNIQUE,
    created_at   TEXT    NOT NULL,
    expires_at   TEXT    NOT NULL,
    revoked_at   TEXT,
    user_agent   TEXT    NOT NULL DEFAULT '',
    ip           TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE password_resets (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    token_hash  TEXT    NOT NULL UNIQUE,
    created_at  TEXT    NOT NULL,
    expires_at  TEXT    NOT NULL,
    used_at     TEXT
);
CREATE INDEX password_resets_user ON password_resets (user_id);

CREATE TABLE contact_messages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     INTEGER REFERENCES users(id),
    first_name  TEXT    NOT NULL,
    last_name   TEXT    NOT NULL,
    email       TEXT    NOT NULL,
    company     TEXT    NOT NULL DEFAULT '',
    subject     TEXT    NOT NULL,
    message     TEXT    NOT NULL,
    ip          TEXT    NOT NULL DEFAULT '',
    created_at  TEXT    NOT NULL
);

-- +goose Down
DROP TABLE contact_messages;
DROP TABLE password_resets;
DROP TABLE sessions;
DROP TRIGGER credit_ledger_no_delete;
DROP TRIGGER credit_ledger_no_update;
DROP TABLE credit_ledger;
DROP TABLE users;
