package mongo

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Settings holds server-wide secrets, generated once and shared by every instance and the CLI.
type Settings struct{ c *mongo.Collection }

type secretDoc struct {
	ID    string `bson:"_id"`
	Value []byte `bson:"value"`
}

// Secret returns the named 32-byte secret, creating it on first use. Concurrent first uses
// agree: the loser of the insert race reads the winner's value.
func (r *Settings) Secret(ctx context.Context, name string) ([]byte, error) {
	var d secretDoc
	err := r.c.FindOne(ctx, byID("secret:"+name)).Decode(&d)
	if err == nil {
		return d.Value, nil
	}
	if err = translate("get secret", err); err != tenants.ErrNotFound {
		return nil, err
	}
	d = secretDoc{ID: "secret:" + name, Value: make([]byte, 32)}
	if _, err := rand.Read(d.Value); err != nil {
		return nil, fmt.Errorf("generate secret: %w", err)
	}
	if _, err := r.c.InsertOne(ctx, d); err != nil {
		if translate("", err) == tenants.ErrConflict {
			return r.Secret(ctx, name)
		}
		return nil, translate("insert secret", err)
	}
	return d.Value, nil
}
