package mongo

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// SMS holds the tenants' SMS provider secrets (sealed), one document per tenant and
// provider, the inbound message ids applied, one document per message, and the tenants'
// sending numbers, one document per tenant and number.
type SMS struct{ secrets, messages, numbers *mongo.Collection }

var _ tenants.SMSRepo = (*SMS)(nil)

type smsSecretDoc struct {
	ID       string    `bson:"_id"`
	TenantID string    `bson:"tenantId"`
	Provider string    `bson:"provider"`
	Sealed   string    `bson:"sealed"`
	SetAt    time.Time `bson:"setAt"`
}

// smsMessageDoc is an applied message; Provider and MessageID are absent from the documents
// written before messages were looked up across tenants.
type smsMessageDoc struct {
	ID        string    `bson:"_id"`
	TenantID  string    `bson:"tenantId"`
	Provider  string    `bson:"provider,omitempty"`
	MessageID string    `bson:"messageId,omitempty"`
	AppliedAt time.Time `bson:"appliedAt"`
}

type smsNumberDoc struct {
	ID       string    `bson:"_id"`
	TenantID string    `bson:"tenantId"`
	Number   string    `bson:"number"`
	AddedAt  time.Time `bson:"addedAt"`
}

// smsID keys a tenant's document of a provider; ids hold no "/" (tenant ids, provider names).
func smsID(parts ...string) string { return strings.Join(parts, "/") }

// SetSecret stores or replaces the tenant's secret of a provider.
func (r *SMS) SetSecret(ctx context.Context, s tenants.SMSSecret) error {
	doc := smsSecretDoc{ID: smsID(s.TenantID, s.Provider), TenantID: s.TenantID, Provider: s.Provider, Sealed: s.Sealed, SetAt: s.SetAt}
	_, err := r.secrets.ReplaceOne(ctx, ofTenant(s.TenantID, doc.ID), doc, options.Replace().SetUpsert(true))
	return translate("set sms secret", err)
}

// Secret returns the tenant's secret of provider.
func (r *SMS) Secret(ctx context.Context, tenantID, provider string) (tenants.SMSSecret, error) {
	var d smsSecretDoc
	err := r.secrets.FindOne(ctx, ofTenant(tenantID, smsID(tenantID, provider))).Decode(&d)
	return d.secret(), translate("get sms secret", err)
}

// Secrets returns the tenant's secrets by provider.
func (r *SMS) Secrets(ctx context.Context, tenantID string) ([]tenants.SMSSecret, error) {
	return r.list(ctx, bson.D{{Key: "tenantId", Value: tenantID}})
}

// AllSecrets returns every tenant's secrets.
func (r *SMS) AllSecrets(ctx context.Context) ([]tenants.SMSSecret, error) {
	return r.list(ctx, bson.D{})
}

func (r *SMS) list(ctx context.Context, filter bson.D) ([]tenants.SMSSecret, error) {
	docs, err := findAll[smsSecretDoc](ctx, r.secrets, "list sms secrets", filter,
		options.Find().SetSort(bson.D{asc("tenantId"), asc("provider")}))
	if err != nil {
		return nil, err
	}
	out := make([]tenants.SMSSecret, len(docs))
	for i, d := range docs {
		out[i] = d.secret()
	}
	return out, nil
}

func (d smsSecretDoc) secret() tenants.SMSSecret {
	return tenants.SMSSecret{TenantID: d.TenantID, Provider: d.Provider, Sealed: d.Sealed, SetAt: d.SetAt.UTC()}
}

// MessageSeen reports whether the message id was applied, for the tenant or any other (a
// message applies once, whichever tenant's URL it was posted to). The tenant's own document is
// found by _id too: those written before carry no provider and message id fields.
func (r *SMS) MessageSeen(ctx context.Context, tenantID, provider, messageID string) (bool, error) {
	filter := bson.D{{Key: "$or", Value: bson.A{
		bson.D{{Key: "_id", Value: smsID(tenantID, provider, messageID)}},
		bson.D{{Key: "provider", Value: provider}, {Key: "messageId", Value: messageID}},
	}}}
	err := r.messages.FindOne(ctx, filter).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, translate("find sms message", err)
}

// RememberMessage records the message id as applied.
func (r *SMS) RememberMessage(ctx context.Context, tenantID, provider, messageID string, at time.Time) error {
	_, err := r.messages.InsertOne(ctx, smsMessageDoc{ID: smsID(tenantID, provider, messageID), TenantID: tenantID,
		Provider: provider, MessageID: messageID, AppliedAt: at})
	if err = translate("remember sms message", err); errors.Is(err, tenants.ErrConflict) {
		return nil
	}
	return err
}

// AddNumber registers a sending number of the tenant; added is false when it was already.
func (r *SMS) AddNumber(ctx context.Context, n tenants.SMSNumber) (bool, error) {
	_, err := r.numbers.InsertOne(ctx, smsNumberDoc{ID: smsID(n.TenantID, n.Number), TenantID: n.TenantID, Number: n.Number, AddedAt: n.AddedAt})
	if err = translate("add sms number", err); errors.Is(err, tenants.ErrConflict) {
		return false, nil
	}
	return err == nil, err
}

// RemoveNumber removes a sending number of the tenant; ErrNotFound when it has no such one.
func (r *SMS) RemoveNumber(ctx context.Context, tenantID, number string) error {
	res, err := r.numbers.DeleteOne(ctx, ofTenant(tenantID, smsID(tenantID, number)))
	if err != nil {
		return translate("remove sms number", err)
	}
	if res.DeletedCount == 0 {
		return tenants.ErrNotFound
	}
	return nil
}

// Numbers returns the tenant's sending numbers, in the order they were added.
func (r *SMS) Numbers(ctx context.Context, tenantID string) ([]tenants.SMSNumber, error) {
	docs, err := findAll[smsNumberDoc](ctx, r.numbers, "list sms numbers", bson.D{{Key: "tenantId", Value: tenantID}},
		options.Find().SetSort(bson.D{asc("addedAt"), asc("number")}))
	if err != nil {
		return nil, err
	}
	out := make([]tenants.SMSNumber, len(docs))
	for i, d := range docs {
		out[i] = tenants.SMSNumber{TenantID: d.TenantID, Number: d.Number, AddedAt: d.AddedAt.UTC()}
	}
	return out, nil
}
