-- +goose Up
-- Portfolios (issue 40): a named list of an account's homes, each valued when added and revalued once a month by a
-- periodic job, with alerts when a home's value moves by more than the portfolio's threshold.

-- status: 'active', or 'paused' (paused_reason says why: the account could not pay for a month's revaluation; it
-- resumes on the job's next run once the balance pays again). alert_threshold is a percentage (5 = 5%); NULL: no
-- alerts. webhook_secret signs the alert webhooks (as a batch job's does) and is set with webhook_url.
CREATE TABLE portfolios (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id         BIGINT  NOT NULL REFERENCES users(id),
    name            TEXT    NOT NULL,
    alert_threshold DOUBLE PRECISION,
    webhook_url     TEXT,
    webhook_secret  TEXT,
    status          TEXT    NOT NULL DEFAULT 'active',
    paused_reason   TEXT,
    paused_at       TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX portfolios_user ON portfolios (user_id, id);

-- A home of a portfolio: the caller's input (JSON, what each revaluation values again) and the address as the
-- lookup normalised it. One home per address in a portfolio. Removing a home deletes it and its valuations (the
-- ledger keeps its charges).
CREATE TABLE portfolio_homes (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    portfolio_id      BIGINT  NOT NULL REFERENCES portfolios(id),
    input             TEXT    NOT NULL,
    formatted_address TEXT    NOT NULL,
    address           TEXT    NOT NULL,
    unit              TEXT,
    city              TEXT    NOT NULL,
    state             TEXT    NOT NULL,
    zip               TEXT    NOT NULL,
    added_at          TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX portfolio_homes_address ON portfolio_homes (portfolio_id, formatted_address);

-- One valuation of a home a month ('YYYY-MM', the business clock's month). UNIQUE (home_id, month) is what keeps a
-- home from being valued, and charged, twice in a month however many instances run the job: the row and its charge
-- are written in one transaction, and a second writer's insert changes nothing. usage_id is the charge's usage
-- record (the ledger row's reference is 'usage:<usage_id>').
CREATE TABLE portfolio_valuations (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    home_id    BIGINT  NOT NULL REFERENCES portfolio_homes(id),
    month      TEXT    NOT NULL,
    value      BIGINT  NOT NULL,
    low        BIGINT  NOT NULL,
    high       BIGINT  NOT NULL,
    confidence DOUBLE PRECISION    NOT NULL,
    fsd        DOUBLE PRECISION    NOT NULL,
    usage_id   BIGINT,
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (home_id, month)
);

-- One alert per portfolio and month: the homes that moved past the threshold, emailed (mail_outbox) and posted to
-- the webhook, each once.
CREATE TABLE portfolio_alerts (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    portfolio_id BIGINT  NOT NULL REFERENCES portfolios(id),
    month        TEXT    NOT NULL,
    payload      TEXT    NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    UNIQUE (portfolio_id, month)
);

-- +goose Down
DROP TABLE portfolio_alerts;
DROP TABLE portfolio_valuations;
DROP TABLE portfolio_homes;
DROP TABLE portfolios;
