-- +goose Up
-- Operators (issue 27): the admin role, suspension, the operators' audit log and the dashboard's live support chat.

-- role: 'customer' or 'admin' (given and taken only with `valuator admin add|remove`). A suspended account
-- (suspended_at set) keeps its data but cannot sign in, use its sessions or keys, or run batch jobs.
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'customer';
ALTER TABLE users ADD COLUMN suspended_at TEXT;
ALTER TABLE users ADD COLUMN suspend_reason TEXT;

-- held_at: the job's account was suspended while it waited or ran; the worker leaves it alone until the account is
-- reinstated, which clears it and queues the job again.
ALTER TABLE batch_jobs ADD COLUMN held_at TEXT;

-- Every operator action, append-only (triggers below). admin_id is NULL for a change made with the command line.
-- Emails are not copied here: they are read from users, so an erased account shows only its placeholder.
CREATE TABLE admin_audit (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    admin_id    INTEGER REFERENCES users(id),
    action      TEXT    NOT NULL,
    account_id  INTEGER REFERENCES users(id),
    reason      TEXT    NOT NULL DEFAULT '',
    before_state TEXT   NOT NULL DEFAULT '{}',
    after_state  TEXT   NOT NULL DEFAULT '{}',
    created_at  TEXT    NOT NULL
);
CREATE INDEX admin_audit_account ON admin_audit (account_id, id);
-- +goose StatementBegin
CREATE TRIGGER admin_audit_no_update BEFORE UPDATE ON admin_audit
BEGIN
    SELECT RAISE(ABORT, 'admin_audit is append-only');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER admin_audit_no_delete BEFORE DELETE ON admin_audit
BEGIN
    SELECT RAISE(ABORT, 'admin_audit is append-only');
END;
-- +goose StatementEnd

-- The dashboard's support chat: one open conversation per account at a time.
CREATE TABLE support_conversations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id          INTEGER NOT NULL REFERENCES users(id),
    status           TEXT    NOT NULL DEFAULT 'open',
    assignee_id      INTEGER REFERENCES users(id),
    -- the customer's last look at the conversation (a poll): a reply to a customer not seen for 2 minutes is emailed
    customer_seen_at TEXT,
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL,
    closed_at        TEXT
);
CREATE INDEX support_conversations_user ON support_conversations (user_id, id);
CREATE UNIQUE INDEX support_conversations_open ON support_conversations (user_id) WHERE status = 'open';

CREATE TABLE support_messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER NOT NULL REFERENCES support_conversations(id),
    author_id       INTEGER NOT NULL REFERENCES users(id),
    -- 'customer' or 'team'
    sender          TEXT    NOT NULL,
    body            TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    -- when the other side read it
    read_at         TEXT
);
CREATE INDEX support_messages_conversation ON support_messages (conversation_id, id);

-- Contact-form messages are items of the operators' inbox too.
ALTER TABLE contact_messages ADD COLUMN read_at TEXT;
ALTER TABLE contact_messages ADD COLUMN closed_at TEXT;

-- +goose Down
ALTER TABLE contact_messages DROP COLUMN closed_at;
ALTER TABLE contact_messages DROP COLUMN read_at;
DROP TABLE support_messages;
DROP TABLE support_conversations;
DROP TRIGGER admin_audit_no_delete;
DROP TRIGGER admin_audit_no_update;
DROP TABLE admin_audit;
ALTER TABLE batch_jobs DROP COLUMN held_at;
ALTER TABLE users DROP COLUMN suspend_reason;
ALTER TABLE users DROP COLUMN suspended_at;
ALTER TABLE users DROP COLUMN role;
