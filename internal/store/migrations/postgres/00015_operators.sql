-- +goose Up
-- Operators (issue 27): the admin role, suspension, the operators' audit log and the dashboard's live support chat.

-- role: 'customer' or 'admin' (given and taken only with `valuator admin add|remove`). A suspended account
-- (suspended_at set) keeps its data but cannot sign in, use its sessions or keys, or run batch jobs.
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'customer';
ALTER TABLE users ADD COLUMN suspended_at TIMESTAMPTZ;
ALTER TABLE users ADD COLUMN suspend_reason TEXT;

-- held_at: the job's account was suspended while it waited or ran; the worker leaves it alone until the account is
-- reinstated, which clears it and queues the job again.
ALTER TABLE batch_jobs ADD COLUMN held_at TIMESTAMPTZ;

-- Every operator action, append-only (trigger below). admin_id is NULL for a change made with the command line.
-- Emails are not copied here: they are read from users, so an erased account shows only its placeholder.
CREATE TABLE admin_audit (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    admin_id    BIGINT REFERENCES users(id),
    action      TEXT        NOT NULL,
    account_id  BIGINT REFERENCES users(id),
    reason      TEXT        NOT NULL DEFAULT '',
    before_state TEXT       NOT NULL DEFAULT '{}',
    after_state  TEXT       NOT NULL DEFAULT '{}',
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX admin_audit_account ON admin_audit (account_id, id);
-- +goose StatementBegin
CREATE FUNCTION admin_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'admin_audit is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER admin_audit_no_change BEFORE UPDATE OR DELETE ON admin_audit
    FOR EACH ROW EXECUTE FUNCTION admin_audit_append_only();

-- The dashboard's support chat: one open conversation per account at a time.
CREATE TABLE support_conversations (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id          BIGINT      NOT NULL REFERENCES users(id),
    status           TEXT        NOT NULL DEFAULT 'open',
    assignee_id      BIGINT REFERENCES users(id),
    -- the customer's last look at the conversation (a poll): a reply to a customer not seen for 2 minutes is emailed
    customer_seen_at TIMESTAMPTZ,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL,
    closed_at        TIMESTAMPTZ
);
CREATE INDEX support_conversations_user ON support_conversations (user_id, id);
CREATE UNIQUE INDEX support_conversations_open ON support_conversations (user_id) WHERE status = 'open';

CREATE TABLE support_messages (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id BIGINT      NOT NULL REFERENCES support_conversations(id),
    author_id       BIGINT      NOT NULL REFERENCES users(id),
    -- 'customer' or 'team'
    sender          TEXT        NOT NULL,
    body            TEXT        NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    -- when the other side read it
    read_at         TIMESTAMPTZ
);
CREATE INDEX support_messages_conversation ON support_messages (conversation_id, id);

-- Contact-form messages are items of the operators' inbox too.
ALTER TABLE contact_messages ADD COLUMN read_at TIMESTAMPTZ;
ALTER TABLE contact_messages ADD COLUMN closed_at TIMESTAMPTZ;

-- +goose Down
ALTER TABLE contact_messages DROP COLUMN closed_at;
ALTER TABLE contact_messages DROP COLUMN read_at;
DROP TABLE support_messages;
DROP TABLE support_conversations;
DROP TRIGGER admin_audit_no_change ON admin_audit;
DROP FUNCTION admin_audit_append_only();
DROP TABLE admin_audit;
ALTER TABLE batch_jobs DROP COLUMN held_at;
ALTER TABLE users DROP COLUMN suspend_reason;
ALTER TABLE users DROP COLUMN suspended_at;
ALTER TABLE users DROP COLUMN role;
