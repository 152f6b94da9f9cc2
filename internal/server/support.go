package server

// The dashboard's support chat and the operators' inbox (issue 27). Customers' routes take a session; the inbox's
// routes are operators' (requireAdmin). Answers use the console's shape (admin.go). Both sides poll with after (the
// last message id the client holds) and get only the newer messages (issue 36, M-3).

import (
	"net/http"
	"strings"

	"valuator/internal/admin"
	"valuator/internal/apperr"
	"valuator/internal/support"
)

func (s *Server) supportPanel(w http.ResponseWriter, r *http.Request) {
	p, err := s.support.Panel(r.Context(), userFrom(r.Context()).user.ID)
	s.ok(w, r, p, err)
}

func (s *Server) supportPost(w http.ResponseWriter, r *http.Request) {
	var in support.BodyInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	m, err := s.support.Post(r.Context(), userFrom(r.Context()).user, in)
	s.ok(w, r, m, err)
}

// afterParam reads a poll's after: the id of the last message the client holds, so that the answer carries only
// the newer ones (absent or 0: all, up to support.MaxMessages). Anything but a whole number from 0 to the largest
// id is a 400 naming after.
func afterParam(r *http.Request) (int64, error) {
	v := r.URL.Query().Get("after")
	if strings.Trim(v, "0") == "" { // absent, 0, 00...
		return 0, nil
	}
	n, err := admin.ParseID("after", v)
	if err != nil {
		return 0, apperr.Invalid("after", "after must be the id of the last message shown: a whole number from 0 to "+
			"9223372036854775807")
	}
	return n, nil
}

func (s *Server) supportPoll(w http.ResponseWriter, r *http.Request) {
	after, err := afterParam(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ms, err := s.support.After(r.Context(), userFrom(r.Context()).user.ID, after)
	s.ok(w, r, ms, err)
}

func (s *Server) adminInbox(w http.ResponseWriter, r *http.Request) {
	p, err := page(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	items, total, err := s.support.Inbox(r.Context(), r.URL.Query().Get("status"), p.Offset(), p.Limit)
	s.okPage(w, r, items, admin.PaginationOf(p, total), err)
}

func (s *Server) adminConversation(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	after, err := afterParam(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	c, err := s.support.Conversation(r.Context(), id, after)
	s.ok(w, r, c, err)
}

func (s *Server) adminReply(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in support.BodyInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	m, err := s.support.Reply(r.Context(), userFrom(r.Context()).user, id, in)
	s.ok(w, r, m, err)
}

func (s *Server) adminAssign(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	c, err := s.support.Assign(r.Context(), userFrom(r.Context()).user, id)
	s.ok(w, r, c, err)
}

func (s *Server) adminCloseConversation(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	c, err := s.support.Close(r.Context(), userFrom(r.Context()).user, id)
	s.ok(w, r, c, err)
}

func (s *Server) adminContact(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	m, err := s.support.Contact(r.Context(), id)
	s.ok(w, r, m, err)
}

func (s *Server) adminCloseContact(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	m, err := s.support.CloseContact(r.Context(), userFrom(r.Context()).user, id)
	s.ok(w, r, m, err)
}
