-- +goose Up

CREATE TABLE users (
    id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email                TEXT        NOT NULL,
    -- lower-cased email for case-insensitive uniqueness; NULL once the account is closed, which frees the address
    email_key            TEXT        UNIQUE,
    password_hash        TEXT        NOT NULL,
    full_name            TEXT        NOT NULL,
    company              TEXT        NOT NULL DEFAULT '',
    plan                 TEXT        NOT NULL DEFAULT 'free',
    -- the balance; changed only together with a credit_ledger row (store.postCredit)
    credits              BIGINT      NOT NULL DEFAULT 0,
    total_credits_earned BIGINT      NOT NULL DEFAULT 0,
    notify_email         BOOLEAN     NOT NULL DEFAULT TRUE,
    notify_usage         BOOLEAN     NOT NULL DEFAULT TRUE,
    notify_weekly        BOOLEAN     NOT NULL DEFAULT FALSE,
    notify_marketing     BOOLEAN     NOT NULL DEFAULT FALSE,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL,
    closed_at            TIMESTAMPTZ
);

CREATE TABLE credit_ledger (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id       BIGINT      NOT NULL REFERENCES users(id),
    amount        BIGINT      NOT NULL,
    balance_after BIGINT      NOT NULL,
    kind          TEXT        NOT NULL,
    description   TEXT        NOT NULL,
    reference     TEXT        NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX credit_ledger_user ON credit_ledger (user_id, id);

-- The ledger is append-only: history is never rewritten, corrections are new rows.
-- +goose StatementBegin
CREATE FUNCTION credit_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'credit_ledger is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER credit_ledger_no_change BEFORE UPDATE OR DELETE ON credit_ledger
    FOR EACH ROW EXECUTE FUNCTION credit_ledger_append_only();

CREATE TABLE sessions (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      BIGINT      NOT NULL REFERENCES users(id),
    token_hash   TEXT        NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    revoked_at   TIMESTAMPTZ,
    user_agent   TEXT        NOT NULL DEFAULT '',
    ip           TEXT        NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE password_resets (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id     BIGINT      NOT NULL REFERENCES users(id),
    token_hash  TEXT        NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ
);
CREATE INDEX password_resets_user ON password_resets (user_id);

CREATE TABLE contact_messages (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id     BIGINT REFERENCES users(id),
    first_name  TEXT        NOT NULL,
    last_name   TEXT        NOT NULL,
    email       TEXT        NOT NULL,
    company     TEXT        NOT NULL DEFAULT '',
    subject     TEXT        NOT NULL,
    message     TEXT        NOT NULL,
    ip          TEXT        NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE contact_messages;
DROP TABLE password_resets;
DROP TABLE sessions;
DROP TABLE credit_ledger;
DROP FUNCTION credit_ledger_append_only();
DROP TABLE users;
