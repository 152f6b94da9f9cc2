-- +goose Up
-- The email addresses of closed accounts, kept after the account's own email_key is freed: a new account with one
-- of them gets no sign-up grant, so closing an account and signing up again does not farm free credits. Only the
-- SHA-256 of the email key (store.emailKeyHash) is kept: the rule needs to recognise the address, not to read it.

CREATE TABLE closed_emails (
    email_hash TEXT        PRIMARY KEY,
    closed_at  TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE closed_emails;
