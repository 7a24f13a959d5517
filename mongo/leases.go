package mongo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Leases keeps the jobs' leases: one document per lease and term (_id "<name>#<term>") with
// its owner and expiry. The holder renews its term's expiry; another instance takes an
// expired lease over by inserting the next term, which of instances racing exactly one wins
// (an insert is atomic on its _id on MongoDB and FerretDB alike; a conditional update is not
// on FerretDB, where MongoDB's findOneAndUpdate would do). The latest term says who holds the
// lease. A renewal racing a takeover may leave both believing they hold it for one renewal
// period: the jobs are idempotent, the lease only keeps them from doing the same work twice.
type Leases struct {
	c   *mongo.Collection
	now func() time.Time
}

var _ tenants.LeaseRepo = (*Leases)(nil)

type leaseDoc struct {
	ID    string    `bson:"_id"`
	Name  string    `bson:"name"`
	Term  int64     `bson:"term"`
	Owner string    `bson:"owner"`
	Until time.Time `bson:"until"`
}

func leaseID(name string, term int64) string { return fmt.Sprintf("%s#%d", name, term) }

// Hold implements tenants.LeaseRepo.
func (r *Leases) Hold(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	now := r.now()
	var last leaseDoc
	err := r.c.FindOne(ctx, bson.D{{Key: "name", Value: name}}, options.FindOne().SetSort(bson.D{desc("term")})).Decode(&last)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
	case err != nil:
		return false, translate("read lease", err)
	case last.Owner == owner:
		_, err := r.c.UpdateOne(ctx, bson.D{{Key: "_id", Value: last.ID}, {Key: "owner", Value: owner}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "until", Value: now.Add(ttl)}}}})
		return err == nil, translate("renew lease", err)
	case now.Before(last.Until):
		return false, nil // another instance holds it
	}
	term := last.Term + 1
	_, err = r.c.InsertOne(ctx, leaseDoc{ID: leaseID(name, term), Name: name, Term: term, Owner: owner, Until: now.Add(ttl)})
	if mongo.IsDuplicateKeyError(err) {
		return false, nil // another instance took it first
	}
	if err != nil {
		return false, translate("take lease", err)
	}
	// The terms before are history.
	_, _ = r.c.DeleteMany(ctx, bson.D{{Key: "name", Value: name}, {Key: "term", Value: bson.D{{Key: "$lt", Value: term}}}})
	return true, nil
}
