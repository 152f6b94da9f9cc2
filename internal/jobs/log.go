package jobs

import (
	"context"
	"log/slog"
)

// riverDebug are River's INFO messages that tell an operator nothing to act on, logged at DEBUG instead. River says
// on every start that the driver has no LISTEN/NOTIFY and that it polls: that is how this queue works on both
// databases (database/sql drivers, FetchPollInterval), so at INFO it only sat beside the start-up line that matters.
// Its producer also reports its job counts at INFO whenever they change, which in a busy queue is a line every few
// seconds that the jobs' own logs and /api/jobs already tell better.
var riverDebug = map[string]bool{
	"Driver does not support listener; entering poll only mode": true,
	"producer: Producer job counts":                             true,
}

// riverHandler is the slog handler River logs through: every record goes to the application's handler, the known
// notices of riverDebug at DEBUG.
type riverHandler struct{ slog.Handler }

func (h riverHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo && riverDebug[r.Message] {
		// The logger asked Enabled at INFO; the record is now DEBUG, which the handler may not want.
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h riverHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return riverHandler{h.Handler.WithAttrs(attrs)}
}

func (h riverHandler) WithGroup(name string) slog.Handler {
	return riverHandler{h.Handler.WithGroup(name)}
}

// riverLogger is the logger River gets: the application's, marked as the job queue's, with riverHandler's levels.
func riverLogger(log *slog.Logger) *slog.Logger {
	return slog.New(riverHandler{log.With("component", "jobs").Handler()})
}
