-- +goose Up
-- The mailboxes that have had their welcome credits (account.MailboxKey: jane+tag@example.com is jane@example.com,
-- and j.ane@googlemail.com is jane@gmail.com), so that a mailbox gets them once, ever, however many aliases sign
-- up. The sign-up transaction inserts its mailbox with ON CONFLICT DO NOTHING and grants the credits only if the
-- row went in, so the primary key decides between parallel sign-ups. user_id is the account that received them.
-- Only the SHA-256 of the mailbox key (store.emailKeyHash) is kept, as in closed_emails: the rule needs to
-- recognise the mailbox, not to read it, and a closed account's address must be erasable.
--
-- Accounts made before this table are entered by store.backfillWelcomeGrants, in Go, after the migrations: SQL
-- cannot compute the mailbox key.

CREATE TABLE welcome_grants (
    mailbox_hash TEXT    PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id),
    created_at   TEXT    NOT NULL
);

-- +goose Down
DROP TABLE welcome_grants;
