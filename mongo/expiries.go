package mongo

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Expiries files every consent deadline under the minute it falls in, so the expiry job
// reads due deadlines by _id instead of scanning every record. No document grows after it
// is written (many consents share a deadline date, and rewriting one growing document per
// submission would make every write slower than the last): a small counter per minute
// ("c:<minute>") hands out page numbers, and each write inserts its own page of deadlines
// ("m:<minute>:<n>").
type Expiries struct{ c *mongo.Collection }

type pageDoc struct {
	ID    string           `bson:"_id"`
	Items []tenants.Expiry `bson:"items"`
}

type counterDoc struct {
	ID string `bson:"_id"`
	N  int    `bson:"n"`
}

type cursorDoc struct {
	ID     string    `bson:"_id"`
	Minute time.Time `bson:"minute"`
}

const cursorID = "cursor"

// BucketMinute is the minute a deadline is filed under: rounded up, so the minute is only
// read once every deadline in it has passed.
func BucketMinute(t time.Time) time.Time {
	m := t.UTC().Truncate(time.Minute)
	if m.Before(t) {
		m = m.Add(time.Minute)
	}
	return m
}

func minuteKey(minute time.Time) string { return minute.UTC().Format("200601021504") }

func counterID(minute time.Time) string { return "c:" + minuteKey(minute) }

func pageID(minute time.Time, n int) string { return fmt.Sprintf("m:%s:%d", minuteKey(minute), n) }

// Add files deadlines: per minute, one page number taken from the minute's counter and one
// page inserted. A crash between the two leaves a number without a page, which readers skip.
func (r *Expiries) Add(ctx context.Context, items []tenants.Expiry) error {
	if len(items) == 0 {
		return nil
	}
	byMinute := map[time.Time][]tenants.Expiry{}
	for _, it := range items {
		m := BucketMinute(it.Deadline)
		byMinute[m] = append(byMinute[m], it)
	}
	minutes := make([]time.Time, 0, len(byMinute))
	for m := range byMinute {
		minutes = append(minutes, m)
	}
	sort.Slice(minutes, func(i, j int) bool { return minutes[i].Before(minutes[j]) })
	pages := make([]any, 0, len(minutes))
	for _, m := range minutes {
		var c counterDoc
		err := r.c.FindOneAndUpdate(ctx, byID(counterID(m)), bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}},
			options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&c)
		if err != nil {
			return translate("reserve expiry page", err)
		}
		pages = append(pages, pageDoc{ID: pageID(m, c.N-1), Items: byMinute[m]})
	}
	_, err := r.c.InsertMany(ctx, pages, options.InsertMany().SetOrdered(false))
	return translate("add expiries", err)
}

// Cursor returns the first minute not yet processed, starting it at now on first use.
func (r *Expiries) Cursor(ctx context.Context, now time.Time) (time.Time, error) {
	var d cursorDoc
	err := r.c.FindOne(ctx, byID(cursorID)).Decode(&d)
	if err = translate("get expiry cursor", err); err == tenants.ErrNotFound {
		m := now.UTC().Truncate(time.Minute)
		return m, r.SetCursor(ctx, m)
	}
	return d.Minute.UTC(), err
}

// SetCursor stores the first minute not yet processed.
func (r *Expiries) SetCursor(ctx context.Context, minute time.Time) error {
	_, err := r.c.ReplaceOne(ctx, byID(cursorID), cursorDoc{ID: cursorID, Minute: minute}, options.Replace().SetUpsert(true))
	return translate("set expiry cursor", err)
}

// Bucket returns the deadlines filed under minute.
func (r *Expiries) Bucket(ctx context.Context, minute time.Time) ([]tenants.Expiry, error) {
	n, err := r.pages(ctx, minute)
	if err != nil {
		return nil, err
	}
	var out []tenants.Expiry
	for i := 0; i < n; i++ {
		var p pageDoc
		err := r.c.FindOne(ctx, byID(pageID(minute, i))).Decode(&p)
		switch err = translate("get expiry page", err); err {
		case nil:
			out = append(out, p.Items...)
		case tenants.ErrNotFound:
		default:
			return nil, err
		}
	}
	return out, nil
}

func (r *Expiries) pages(ctx context.Context, minute time.Time) (int, error) {
	var c counterDoc
	err := r.c.FindOne(ctx, byID(counterID(minute))).Decode(&c)
	if err = translate("get expiry counter", err); err == tenants.ErrNotFound {
		return 0, nil
	}
	return c.N, err
}

// DropBucket deletes a processed minute's pages and counter.
func (r *Expiries) DropBucket(ctx context.Context, minute time.Time) error {
	n, err := r.pages(ctx, minute)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if _, err := r.c.DeleteOne(ctx, byID(pageID(minute, i))); err != nil {
			return translate("drop expiry page", err)
		}
	}
	_, err = r.c.DeleteOne(ctx, byID(counterID(minute)))
	return translate("drop expiry counter", err)
}
