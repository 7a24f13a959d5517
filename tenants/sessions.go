package tenants

import (
	"context"
	"time"
)

// Session is a signed-in staff user's session, recorded so that signing out, disabling the
// user or changing the password ends it on every instance: a session token is honoured only
// while its session is recorded and unexpired. Sessions span tenants (a platform admin has
// none), so the repository is keyed by session id and staff id.
type Session struct {
	ID        string    `json:"id"`
	StaffID   string    `json:"staffId"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// SessionRepo records staff sessions. Sessions are not exported: moving stores signs
// everyone out.
type SessionRepo interface {
	// Insert records a new session and drops every session expired before s.CreatedAt.
	Insert(ctx context.Context, s Session) error
	// Get returns the session with id; ErrNotFound when it ended or never was.
	Get(ctx context.Context, id string) (Session, error)
	// Delete ends one session; ending one that is gone is no error.
	Delete(ctx context.Context, id string) error
	// DeleteStaff ends every session of the staff user but keep ("" = none).
	DeleteStaff(ctx context.Context, staffID, keep string) error
}
