package admin

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// listTotalBound is how far a list's total is counted: beyond it the list reads "1,000+", so
// that a total costs at most that many index entries whatever the filter.
const listTotalBound = 1000

// listTotal counts the records of kind that filter lists, up to listTotalBound.
func (h *handler) listTotal(ctx context.Context, tenantID string, kind tenants.Kind, filter tenants.Page) (web.ListTotal, error) {
	n, err := h.Store.Records.CountUpTo(ctx, tenantID, kind, filter, listTotalBound+1)
	if n > listTotalBound {
		return web.ListTotal{N: listTotalBound, More: true}, err
	}
	return web.ListTotal{N: int(n)}, err
}

// formNames maps the tenant's form ids to their names (forms without a name left out), so
// that a page shows names with the id in a tooltip.
func (h *handler) formNames(ctx context.Context, tenantID string) (map[string]string, error) {
	forms, err := h.Store.Forms.List(ctx, tenantID)
	names := make(map[string]string, len(forms))
	for _, f := range forms {
		if f.Name != "" {
			names[f.FormID] = f.Name
		}
	}
	return names, err
}

// A list's cursor is a position in it, opaque to the browser: base64url of "o" (the rows
// older than the row) or "n" (newer), the row's time in Unix milliseconds, ".", and the row's
// id (a record's public id, an audit entry's id).

func encodeListCursor(c tenants.Cursor) string {
	dir := "o"
	if c.Newer {
		dir = "n"
	}
	return base64.RawURLEncoding.EncodeToString([]byte(dir + strconv.FormatInt(c.Time.UnixMilli(), 10) + "." + c.ID))
}

// decodeListCursor reads a cursor; ok is false for one this service did not write.
func decodeListCursor(s string) (tenants.Cursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 3 || (b[0] != 'o' && b[0] != 'n') {
		return tenants.Cursor{}, false
	}
	ms, id, found := strings.Cut(string(b[1:]), ".")
	at, err := strconv.ParseInt(ms, 10, 64)
	if !found || err != nil || id == "" || len(id) > 200 {
		return tenants.Cursor{}, false
	}
	return tenants.Cursor{Time: time.UnixMilli(at).UTC(), ID: id, Newer: b[0] == 'n'}, true
}

// listCursor is the ?cursor= of a list request (nil: the first page). ok is false for a
// cursor that is no cursor or an old ?page= link: the caller sends the browser to the first
// page, its filters kept, as a page number no longer names the same rows once rows arrive.
func listCursor(c *fiber.Ctx) (*tenants.Cursor, bool) {
	if c.Query("page") != "" {
		return nil, false
	}
	s := c.Query("cursor")
	if s == "" {
		return nil, true
	}
	cur, ok := decodeListCursor(s)
	return &cur, ok
}

// keysetPage reads one page of a newest-first list beside cur (nil: the newest rows) and the
// cursors of its neighbours ("" where there is none). read asks the store for at most per+1
// rows beside its cursor; pos is a row's position. A page of newer rows that reaches the
// newest is the first page, read again from the top so that it is full.
func keysetPage[T any](cur *tenants.Cursor, per int, read func(*tenants.Cursor) ([]T, error), pos func(T) tenants.Cursor) (rows []T, newer, older string, err error) {
	if rows, err = read(cur); err != nil {
		return nil, "", "", err
	}
	if cur != nil && cur.Newer {
		if len(rows) > per { // more newer rows beyond the page; the cursor's row is older
			rows = rows[len(rows)-per:]
			n, o := pos(rows[0]), pos(rows[len(rows)-1])
			n.Newer = true
			return rows, encodeListCursor(n), encodeListCursor(o), nil
		}
		cur = nil
		if rows, err = read(nil); err != nil {
			return nil, "", "", err
		}
	}
	if len(rows) > per {
		rows = rows[:per]
		older = encodeListCursor(pos(rows[per-1]))
	}
	if cur != nil {
		n := *cur // past the end, the way back is newer than the cursor itself
		if len(rows) > 0 {
			n = pos(rows[0])
		}
		n.Newer = true
		newer = encodeListCursor(n)
	}
	return rows, newer, older, nil
}
