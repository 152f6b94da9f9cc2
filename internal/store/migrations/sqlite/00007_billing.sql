-- +goose Up
-- Billing (internal/billing). Every account has a billing period, Free ones too: the period job grants each
-- period's plan credits, expires the credits carried from the period before, settles overage and applies scheduled
-- plan changes. A NULL period (accounts made before this migration) is started by the period job at its next run.
ALTER TABLE users ADD COLUMN period_anchor TEXT;
ALTER TABLE users ADD COLUMN period_start TEXT;
ALTER TABLE users ADD COLUMN period_end TEXT;
-- Credits the current period started with from the one before; what of them is unused expires at period_end.
ALTER TABLE users ADD COLUMN carried_credits INTEGER NOT NULL DEFAULT 0;
CREATE INDEX users_period_end ON users (period_end);

-- One paid subscription per account (its latest); none for an account that never subscribed.
CREATE TABLE subscriptions (
    user_id              INTEGER PRIMARY KEY REFERENCES users(id),
    plan                 TEXT    NOT NULL,
    -- incomplete (first payment not made), active, past_due (a renewal failed), canceled
    status               TEXT    NOT NULL,
    -- a downgrade scheduled for the end of the period
    pending_plan         TEXT,
    cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
    provider             TEXT    NOT NULL,
    customer_ref         TEXT    NOT NULL DEFAULT '',
    subscription_ref     TEXT    NOT NULL DEFAULT '',
    payment_method_ref   TEXT    NOT NULL DEFAULT '',
    card_brand           TEXT    NOT NULL DEFAULT '',
    card_last4           TEXT    NOT NULL DEFAULT '',
    card_exp_month       INTEGER NOT NULL DEFAULT 0,
    card_exp_year        INTEGER NOT NULL DEFAULT 0,
    created_at           TEXT    NOT NULL,
    updated_at           TEXT    NOT NULL
);
CREATE INDEX subscriptions_ref ON subscriptions (provider, subscription_ref);

-- Payments and invoices: what was charged, for what, and how it ended. A payment's credits are granted only when
-- the provider's event says it succeeded (billing.Service.HandleEvent).
CREATE TABLE payments (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id            INTEGER NOT NULL REFERENCES users(id),
    provider           TEXT    NOT NULL,
    -- the provider's payment (PaymentIntent) or invoice item; NULL until the provider makes one
    ref                TEXT,
    -- SHA-256 of a test-mode client secret (Stripe keeps its own)
    secret_hash        TEXT,
    -- subscription, upgrade, renewal, overage
    kind               TEXT    NOT NULL,
    plan               TEXT    NOT NULL,
    from_plan          TEXT    NOT NULL DEFAULT '',
    amount_cents       INTEGER NOT NULL,
    -- credits the payment grants when it succeeds
    credits            INTEGER NOT NULL DEFAULT 0,
    status             TEXT    NOT NULL,
    description        TEXT    NOT NULL,
    failure_message    TEXT    NOT NULL DEFAULT '',
    period_start       TEXT,
    period_end         TEXT,
    -- one renewal or overage payment per account and period
    dedupe_key         TEXT    UNIQUE,
    created_at         TEXT    NOT NULL,
    updated_at         TEXT    NOT NULL
);
CREATE INDEX payments_user ON payments (user_id, id);
CREATE UNIQUE INDEX payments_ref ON payments (provider, ref);
CREATE UNIQUE INDEX payments_secret ON payments (secret_hash);

-- Provider events already applied: a webhook delivered twice is applied once.
CREATE TABLE billing_events (
    provider    TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    type        TEXT NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (provider, event_id)
);

-- Test-mode payment methods: a test card's brand, last four digits and how Stripe's test mode would answer it.
-- The card number itself is never kept.
CREATE TABLE test_cards (
    id         TEXT    PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    brand      TEXT    NOT NULL,
    last4      TEXT    NOT NULL,
    exp_month  INTEGER NOT NULL,
    exp_year   INTEGER NOT NULL,
    outcome    TEXT    NOT NULL,
    created_at TEXT    NOT NULL
);

-- Low-balance and usage alerts, written in the transaction of the charge that crossed the threshold (once per
-- kind and period) and mailed afterwards by a job that honours the notification settings.
CREATE TABLE billing_alerts (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    kind       TEXT    NOT NULL,
    period_key TEXT    NOT NULL,
    balance    INTEGER NOT NULL,
    created_at TEXT    NOT NULL,
    sent_at    TEXT,
    outcome    TEXT    NOT NULL DEFAULT '',
    UNIQUE (user_id, kind, period_key)
);
CREATE INDEX billing_alerts_unsent ON billing_alerts (sent_at);

-- +goose Down
DROP TABLE billing_alerts;
DROP TABLE test_cards;
DROP TABLE billing_events;
DROP TABLE payments;
DROP TABLE subscriptions;
DROP INDEX users_period_end;
ALTER TABLE users DROP COLUMN carried_credits;
ALTER TABLE users DROP COLUMN period_end;
ALTER TABLE users DROP COLUMN period_start;
ALTER TABLE users DROP COLUMN period_anchor;
