package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"valuator/internal/admin"
	"valuator/internal/support"
)

// The store implements support.Store (the dashboard's support chat and the operators' inbox, issue 27).
var _ support.Store = (*DB)(nil)

const messageColumns = `m.id, m.sender, COALESCE(a.full_name, ''), m.body, m.created_at`

func scanMessages(rows *sql.Rows) ([]support.Message, error) {
	defer rows.Close()
	out := []support.Message{}
	for rows.Next() {
		var m support.Message
		var at dbTime
		if err := rows.Scan(&m.ID, &m.From, &m.AuthorName, &m.Body, &at); err != nil {
			return nil, err
		}
		if m.From == support.FromTeam && m.AuthorName == "" {
			m.AuthorName = "Valuator team"
		}
		m.CreatedAt = at.Time
		out = append(out, m)
	}
	return out, rows.Err()
}

// messagesOf is up to max messages of a conversation after id after, oldest first (the newest max of them).
func messagesOf(ctx context.Context, x q, conversationID, after int64, max int) ([]support.Message, error) {
	rows, err := x.query(ctx, `SELECT * FROM (SELECT `+messageColumns+` FROM support_messages m
		LEFT JOIN users a ON a.id = m.author_id WHERE m.conversation_id = ? AND m.id > ? ORDER BY m.id DESC LIMIT ?) t
		ORDER BY id`, conversationID, after, max)
	if err != nil {
		return nil, err
	}
	return scanMessages(rows)
}

// currentConversation is the account's open conversation, else its latest (0: none).
func currentConversation(ctx context.Context, x q, userID int64) (id int64, status string, err error) {
	err = x.row(ctx, `SELECT id, status FROM support_conversations WHERE user_id = ?
		ORDER BY CASE WHEN status = 'open' THEN 0 ELSE 1 END, id DESC LIMIT 1`, userID).Scan(&id, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	return id, status, err
}

// customerLooked records the customer's look at a conversation and, with markRead, marks the team's messages read.
func customerLooked(ctx context.Context, x q, id int64, at time.Time, markRead bool) error {
	if _, err := x.exec(ctx, `UPDATE support_conversations SET customer_seen_at = ? WHERE id = ?`, x.t(at), id); err != nil {
		return err
	}
	if !markRead {
		return nil
	}
	_, err := x.exec(ctx, `UPDATE support_messages SET read_at = ? WHERE conversation_id = ? AND sender = ?
		AND read_at IS NULL`, x.t(at), id, support.FromTeam)
	return err
}

// CustomerConversation is the account's current conversation with its messages.
func (db *DB) CustomerConversation(ctx context.Context, userID int64, seen time.Time, markRead bool, max int) (*support.CustomerConversation, error) {
	var out *support.CustomerConversation
	err := db.tx(ctx, func(x q) error {
		id, status, err := currentConversation(ctx, x, userID)
		if err != nil || id == 0 {
			return err
		}
		if err := customerLooked(ctx, x, id, seen, markRead); err != nil {
			return err
		}
		ms, err := messagesOf(ctx, x, id, 0, max)
		if err != nil {
			return err
		}
		out = &support.CustomerConversation{ID: id, Status: status, Messages: ms}
		return nil
	})
	return out, err
}

// written is what the account has written, for the limits (support.Written): its messages of the last day, newest
// first (at most MessagesPerDay), and the size of its open conversation id (0: none).
func written(ctx context.Context, x q, userID, open int64, at time.Time) (support.Written, error) {
	w := support.Written{Recent: []time.Time{}}
	rows, err := x.query(ctx, `SELECT m.created_at FROM support_messages m
		JOIN support_conversations c ON c.id = m.conversation_id
		WHERE c.user_id = ? AND m.sender = ? AND m.created_at > ? ORDER BY m.created_at DESC, m.id DESC LIMIT ?`,
		userID, support.FromCustomer, x.t(at.Add(-support.Day)), support.MessagesPerDay)
	if err != nil {
		return w, err
	}
	defer rows.Close()
	for rows.Next() {
		var t dbTime
		if err := rows.Scan(&t); err != nil {
			return w, err
		}
		w.Recent = append(w.Recent, t.Time)
	}
	if err := rows.Err(); err != nil {
		return w, err
	}
	if open == 0 {
		return w, nil
	}
	// length() counts characters on both dialects, as the rules do (utf8.RuneCountInString).
	err = x.row(ctx, `SELECT COUNT(*), COALESCE(SUM(length(body)), 0) FROM support_messages WHERE conversation_id = ?`,
		open).Scan(&w.Messages, &w.Chars)
	return w, err
}

// PostCustomerMessage appends the customer's message to their open conversation, or opens one (the unique index
// on open conversations keeps it to one per account; the account's row lock orders parallel posts, so that admit
// sees every message stored before this one: the limits hold however many posts arrive at once, on any instance).
func (db *DB) PostCustomerMessage(ctx context.Context, userID int64, body string, at time.Time,
	admit func(support.Written) error) (support.Message, error) {
	var m support.Message
	err := db.tx(ctx, func(x q) error {
		if _, err := lockUser(ctx, x, userID); err != nil {
			return err
		}
		var id int64
		err := x.row(ctx, `SELECT id FROM support_conversations WHERE user_id = ? AND status = ?`, userID,
			support.StatusOpen).Scan(&id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		w, werr := written(ctx, x, userID, id, at)
		if werr != nil {
			return werr
		}
		if werr := admit(w); werr != nil {
			return werr
		}
		if errors.Is(err, sql.ErrNoRows) {
			err = x.row(ctx, `INSERT INTO support_conversations (user_id, status, customer_seen_at, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?) RETURNING id`, userID, support.StatusOpen, x.t(at), x.t(at), x.t(at)).Scan(&id)
		}
		if err != nil {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE support_conversations SET updated_at = ?, customer_seen_at = ? WHERE id = ?`,
			x.t(at), x.t(at), id); err != nil {
			return err
		}
		var created dbTime
		if err := x.row(ctx, `INSERT INTO support_messages (conversation_id, author_id, sender, body, created_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id, created_at`, id, userID, support.FromCustomer, body, x.t(at)).
			Scan(&m.ID, &created); err != nil {
			return err
		}
		m.From, m.Body, m.CreatedAt = support.FromCustomer, body, created.Time
		return x.row(ctx, `SELECT full_name FROM users WHERE id = ?`, userID).Scan(&m.AuthorName)
	})
	return m, err
}

// CustomerMessagesAfter is the customer's poll.
func (db *DB) CustomerMessagesAfter(ctx context.Context, userID, after int64, at time.Time, max int) ([]support.Message, error) {
	out := []support.Message{}
	err := db.tx(ctx, func(x q) error {
		id, _, err := currentConversation(ctx, x, userID)
		if err != nil || id == 0 {
			return err
		}
		if err := customerLooked(ctx, x, id, at, true); err != nil {
			return err
		}
		out, err = messagesOf(ctx, x, id, after, max)
		return err
	})
	return out, err
}

// Inbox is a page of conversations and contact-form messages together: unread first, then the most recently
// updated. Both dialects run the same UNION; unread is a 0/1 integer so that it sorts alike on both.
func (db *DB) Inbox(ctx context.Context, status string, offset, limit int64) ([]support.InboxItem, int64, error) {
	x := db.q()
	convWhere, contactWhere, args := "1 = 1", "1 = 1", []any{}
	switch status {
	case support.StatusOpen:
		convWhere, contactWhere = "c.status = 'open'", "m.closed_at IS NULL"
	case support.StatusClosed:
		convWhere, contactWhere = "c.status = 'closed'", "m.closed_at IS NOT NULL"
	}
	union := `SELECT 'conversation' AS type, c.id AS id, c.user_id AS account_id, u.email AS email,
			u.full_name AS name, NULL AS subject,
			COALESCE((SELECT body FROM support_messages lm WHERE lm.conversation_id = c.id ORDER BY lm.id DESC LIMIT 1), '') AS preview,
			c.status AS status,
			CASE WHEN EXISTS (SELECT 1 FROM support_messages um WHERE um.conversation_id = c.id AND um.sender = 'customer'
				AND um.read_at IS NULL) THEN 1 ELSE 0 END AS unread,
			c.assignee_id AS assignee_id, asg.email AS assignee_email, c.updated_at AS updated_at
		FROM support_conversations c JOIN users u ON u.id = c.user_id LEFT JOIN users asg ON asg.id = c.assignee_id
		WHERE ` + convWhere + `
		UNION ALL
		SELECT 'contact', m.id, m.user_id, m.email, m.first_name || ' ' || m.last_name, m.subject, m.message,
			CASE WHEN m.closed_at IS NULL THEN 'open' ELSE 'closed' END,
			CASE WHEN m.read_at IS NULL THEN 1 ELSE 0 END, NULL, NULL, m.created_at
		FROM contact_messages m WHERE ` + contactWhere
	var total int64
	if err := x.row(ctx, `SELECT COUNT(*) FROM (`+union+`) t`, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := x.query(ctx, `SELECT * FROM (`+union+`) t ORDER BY unread DESC, updated_at DESC, id DESC LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []support.InboxItem{}
	for rows.Next() {
		var it support.InboxItem
		var account, assigneeID sql.NullInt64
		var subject, assigneeEmail sql.NullString
		var unread int
		var at dbTime
		if err := rows.Scan(&it.Type, &it.ID, &account, &it.Email, &it.Name, &subject, &it.Preview, &it.Status, &unread,
			&assigneeID, &assigneeEmail, &at); err != nil {
			return nil, 0, err
		}
		if account.Valid {
			it.AccountID = &account.Int64
		}
		if subject.Valid {
			label := support.SubjectLabel(subject.String)
			it.Subject = &label
		}
		if assigneeID.Valid {
			it.Assignee = &support.Person{ID: assigneeID.Int64, Email: assigneeEmail.String}
		}
		it.Preview, it.Unread, it.UpdatedAt = support.Preview(it.Preview), unread == 1, at.Time
		out = append(out, it)
	}
	return out, total, rows.Err()
}

// Conversation is one conversation for an operator, with its messages after id after.
func (db *DB) Conversation(ctx context.Context, id, after int64, markRead bool, at time.Time, max int) (support.Conversation, error) {
	var c support.Conversation
	err := db.tx(ctx, func(x q) error {
		var assigneeID sql.NullInt64
		var assigneeEmail sql.NullString
		var created, updated dbTime
		err := x.row(ctx, `SELECT c.id, c.status, c.user_id, u.email, u.full_name, c.assignee_id, asg.email, c.created_at,
				c.updated_at
			FROM support_conversations c JOIN users u ON u.id = c.user_id LEFT JOIN users asg ON asg.id = c.assignee_id
			WHERE c.id = ?`, id).Scan(&c.ID, &c.Status, &c.AccountID, &c.Email, &c.Name, &assigneeID, &assigneeEmail,
			&created, &updated)
		if errors.Is(err, sql.ErrNoRows) {
			return support.ErrNotFound
		}
		if err != nil {
			return err
		}
		if assigneeID.Valid {
			c.Assignee = &support.Person{ID: assigneeID.Int64, Email: assigneeEmail.String}
		}
		c.CreatedAt, c.UpdatedAt = created.Time, updated.Time
		if markRead {
			if _, err := x.exec(ctx, `UPDATE support_messages SET read_at = ? WHERE conversation_id = ? AND sender = ?
				AND read_at IS NULL`, x.t(at), id, support.FromCustomer); err != nil {
				return err
			}
		}
		c.Messages, err = messagesOf(ctx, x, id, after, max)
		return err
	})
	return c, err
}

// conversationForAction reads a conversation an operator acts on: its account and status.
func conversationForAction(ctx context.Context, x q, id int64) (userID int64, status string, seen dbTime, err error) {
	err = x.row(ctx, `SELECT user_id, status, customer_seen_at FROM support_conversations WHERE id = ?`, id).
		Scan(&userID, &status, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		err = support.ErrNotFound
	}
	return userID, status, seen, err
}

// Reply appends an operator's message, audits it and, when the customer has not looked since awayBefore, queues
// the email in the same transaction.
func (db *DB) Reply(ctx context.Context, adminID, id int64, body string, at, awayBefore time.Time,
	mail support.ReplyMail) (support.Message, bool, error) {
	var m support.Message
	var mailed bool
	err := db.tx(ctx, func(x q) error {
		userID, status, seen, err := conversationForAction(ctx, x, id)
		if err != nil {
			return err
		}
		if status != support.StatusOpen {
			return support.ErrClosed
		}
		var created dbTime
		if err := x.row(ctx, `INSERT INTO support_messages (conversation_id, author_id, sender, body, created_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id, created_at`, id, adminID, support.FromTeam, body, x.t(at)).
			Scan(&m.ID, &created); err != nil {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE support_conversations SET updated_at = ? WHERE id = ?`, x.t(at), id); err != nil {
			return err
		}
		// Answering a conversation reads it.
		if _, err := x.exec(ctx, `UPDATE support_messages SET read_at = ? WHERE conversation_id = ? AND sender = ?
			AND read_at IS NULL`, x.t(at), id, support.FromCustomer); err != nil {
			return err
		}
		if err := x.row(ctx, `SELECT full_name FROM users WHERE id = ?`, adminID).Scan(&m.AuthorName); err != nil {
			return err
		}
		if m.AuthorName == "" {
			m.AuthorName = "Valuator team"
		}
		m.From, m.Body, m.CreatedAt = support.FromTeam, body, created.Time
		if !seen.Valid || seen.Time.Before(awayBefore) {
			mm := mail(m.ID)
			mm.UserID = userID
			if _, err := insertMail(ctx, x, mm); err != nil {
				return err
			}
			mailed = true
		}
		return insertAdminAudit(ctx, x, auditRow{adminID: adminID, accountID: userID, action: admin.ActionSupportReply,
			at: at, before: map[string]any{"conversationId": id},
			after: map[string]any{"conversationId": id, "messageId": m.ID, "emailed": mailed}})
	})
	return m, mailed, err
}

// Assign gives a conversation to the operator.
func (db *DB) Assign(ctx context.Context, adminID, id int64, at time.Time) error {
	return db.tx(ctx, func(x q) error {
		userID, _, _, err := conversationForAction(ctx, x, id)
		if err != nil {
			return err
		}
		var before sql.NullInt64
		if err := x.row(ctx, `SELECT assignee_id FROM support_conversations WHERE id = ?`, id).Scan(&before); err != nil {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE support_conversations SET assignee_id = ?, updated_at = ? WHERE id = ?`,
			adminID, x.t(at), id); err != nil {
			return err
		}
		var was any
		if before.Valid {
			was = before.Int64
		}
		return insertAdminAudit(ctx, x, auditRow{adminID: adminID, accountID: userID, action: admin.ActionSupportAssign,
			at: at, before: map[string]any{"conversationId": id, "assigneeId": was},
			after: map[string]any{"conversationId": id, "assigneeId": adminID}})
	})
}

// CloseConversation closes a conversation (closing a closed one changes nothing and is not audited again).
func (db *DB) CloseConversation(ctx context.Context, adminID, id int64, at time.Time) error {
	return db.tx(ctx, func(x q) error {
		userID, status, _, err := conversationForAction(ctx, x, id)
		if err != nil || status == support.StatusClosed {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE support_conversations SET status = ?, closed_at = ?, updated_at = ? WHERE id = ?`,
			support.StatusClosed, x.t(at), x.t(at), id); err != nil {
			return err
		}
		return insertAdminAudit(ctx, x, auditRow{adminID: adminID, accountID: userID, action: admin.ActionSupportClose,
			at: at, before: map[string]any{"conversationId": id, "status": status},
			after: map[string]any{"conversationId": id, "status": support.StatusClosed}})
	})
}

// ContactMessage is one contact-form message for an operator; markRead marks it read.
func (db *DB) ContactMessage(ctx context.Context, id int64, markRead bool, at time.Time) (support.ContactMessage, error) {
	var m support.ContactMessage
	err := db.tx(ctx, func(x q) error {
		var account sql.NullInt64
		var created, closed dbTime
		err := x.row(ctx, `SELECT id, user_id, first_name, last_name, email, company, subject, message, created_at, closed_at
			FROM contact_messages WHERE id = ?`, id).Scan(&m.ID, &account, &m.FirstName, &m.LastName, &m.Email, &m.Company,
			&m.Subject, &m.Message, &created, &closed)
		if errors.Is(err, sql.ErrNoRows) {
			return support.ErrNotFound
		}
		if err != nil {
			return err
		}
		if account.Valid {
			m.AccountID = &account.Int64
		}
		m.Subject, m.CreatedAt, m.Status = support.SubjectLabel(m.Subject), created.Time, support.StatusOpen
		if closed.Valid {
			m.Status = support.StatusClosed
		}
		if markRead {
			_, err = x.exec(ctx, `UPDATE contact_messages SET read_at = ? WHERE id = ? AND read_at IS NULL`, x.t(at), id)
		}
		return err
	})
	return m, err
}

// CloseContact marks a contact-form message handled, and audits it.
func (db *DB) CloseContact(ctx context.Context, adminID, id int64, at time.Time) error {
	return db.tx(ctx, func(x q) error {
		var account sql.NullInt64
		var closed dbTime
		err := x.row(ctx, `SELECT user_id, closed_at FROM contact_messages WHERE id = ?`, id).Scan(&account, &closed)
		if errors.Is(err, sql.ErrNoRows) {
			return support.ErrNotFound
		}
		if err != nil || closed.Valid {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE contact_messages SET closed_at = ?, read_at = COALESCE(read_at, ?) WHERE id = ?`,
			x.t(at), x.t(at), id); err != nil {
			return err
		}
		return insertAdminAudit(ctx, x, auditRow{adminID: adminID, accountID: account.Int64, action: admin.ActionContactClose,
			at: at, before: map[string]any{"contactMessageId": id, "status": support.StatusOpen},
			after: map[string]any{"contactMessageId": id, "status": support.StatusClosed}})
	})
}
