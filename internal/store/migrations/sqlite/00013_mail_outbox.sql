-- +goose Up
-- The browsers and networks each account has signed in from (notify.Device): only an HMAC of the browser family and
-- the network is kept, never the User-Agent or the address. A sign-in from a device not listed here is alerted.
CREATE TABLE known_devices (
    user_id     INTEGER NOT NULL REFERENCES users(id),
    device_hash TEXT    NOT NULL,
    first_seen  TEXT    NOT NULL,
    last_seen   TEXT    NOT NULL,
    PRIMARY KEY (user_id, device_hash)
);

-- Emails waiting to be sent (notify.Mail): queued in the transaction that decides them, sent by a periodic job,
-- tried again with a backoff while the mail server refuses them. dedupe_key makes each one unique (one weekly
-- report per account and week, one alert per new device, one email per batch outcome).
CREATE TABLE mail_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    kind            TEXT    NOT NULL,
    dedupe_key      TEXT    NOT NULL UNIQUE,
    user_id         INTEGER REFERENCES users(id),
    -- NULL: the account's address when the mail is sent
    recipient       TEXT,
    reply_to        TEXT,
    -- the notification switch that must be on when the mail is sent; NULL: none
    topic           TEXT,
    payload         TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    next_attempt_at TEXT    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    sent_at         TEXT,
    outcome         TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL;

-- +goose Down
DROP TABLE mail_outbox;
DROP TABLE known_devices;
