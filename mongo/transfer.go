package mongo

import (
	"context"
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Transfer exports and imports the whole database.
type Transfer struct{ s *Store }

var _ tenants.Transfer = (*Transfer)(nil)

// Export calls fn with every document: tenants, staff, keys, forms, tokens, records, and the
// audit log oldest first (as appended, for entries of one time), so that an import appends
// it in the same order.
func (t *Transfer) Export(ctx context.Context, fn func(tenants.Item) error) error {
	byID := options.Find().SetSort(bson.D{asc("_id")})
	s := t.s
	steps := []func() error{
		func() error {
			return eachDoc(ctx, s.Tenants.c, "export", bson.D{}, byID, func(d tenantDoc) error { v := d.tenant(); return fn(tenants.Item{Tenant: &v}) })
		},
		func() error {
			return eachDoc(ctx, s.Staff.c, "export", bson.D{}, byID, func(d staffDoc) error { v := tenants.Staff(d); return fn(tenants.Item{Staff: &v}) })
		},
		func() error {
			return eachDoc(ctx, s.APIKeys.c, "export", bson.D{}, byID, func(d apiKeyDoc) error { v := tenants.APIKey(d); return fn(tenants.Item{APIKey: &v}) })
		},
		func() error {
			return eachDoc(ctx, s.Forms.c, "export", bson.D{}, byID, func(d formDoc) error { v := d.form(); return fn(tenants.Item{Form: &v}) })
		},
		func() error {
			return eachDoc(ctx, s.Texts.c, "export", bson.D{}, byID, func(d textDoc) error { v := d.text(); return fn(tenants.Item{Text: &v}) })
		},
		func() error {
			return eachDoc(ctx, s.Tokens.c, "export", bson.D{}, byID, func(d tokenDoc) error { v := tenants.WebhookToken(d); return fn(tenants.Item{Token: &v}) })
		},
	}
	for _, kind := range tenants.Kinds() {
		c, _ := s.Records.col(kind)
		steps = append(steps, func() error {
			return eachDoc(ctx, c, "export", bson.D{}, byID, func(d recordDoc) error {
				rec, err := d.record()
				if err != nil {
					return err
				}
				return fn(tenants.Item{Record: &rec})
			})
		})
	}
	steps = append(steps, func() error {
		return eachDoc(ctx, s.Audit.c, "export", bson.D{}, options.Find().SetSort(bson.D{asc("time"), asc("seq")}),
			func(d auditDoc) error { e := d.entry(); return fn(tenants.Item{Audit: &e}) })
	})
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// Import stores items, skipping those whose id exists; it returns how many were new. The
// items go by collection, in their order, one unordered insert each.
func (t *Transfer) Import(ctx context.Context, items []tenants.Item) (int, error) {
	var order []*mongo.Collection
	docs := map[*mongo.Collection][]any{}
	add := func(c *mongo.Collection, doc any) {
		if _, ok := docs[c]; !ok {
			order = append(order, c)
		}
		docs[c] = append(docs[c], doc)
	}
	var audit []tenants.AuditEntry
	for _, it := range items {
		switch {
		case it.Tenant != nil:
			add(t.s.Tenants.c, toTenantDoc(*it.Tenant))
		case it.Staff != nil:
			v := *it.Staff
			v.Email = tenants.StaffEmailKey(v.Email)
			add(t.s.Staff.c, staffDoc(v))
		case it.APIKey != nil:
			add(t.s.APIKeys.c, apiKeyDoc(*it.APIKey))
		case it.Form != nil:
			add(t.s.Forms.c, toFormDoc(*it.Form))
		case it.Text != nil:
			add(t.s.Texts.c, toTextDoc(*it.Text))
		case it.Token != nil:
			add(t.s.Tokens.c, tokenDoc(*it.Token))
		case it.Record != nil:
			c, err := t.s.Records.col(it.Record.Kind)
			if err != nil {
				return 0, err
			}
			d, err := toDoc(*it.Record)
			if err != nil {
				return 0, err
			}
			add(c, d)
		case it.Audit != nil:
			audit = append(audit, *it.Audit)
		}
	}
	if len(audit) > 0 {
		order = append(order, t.s.Audit.c)
		docs[t.s.Audit.c] = t.s.Audit.docs(audit)
	}
	added := 0
	for _, c := range order {
		n, err := insertNew(ctx, c, docs[c])
		if err != nil {
			return added, err
		}
		added += n
	}
	return added, t.s.Audit.chains.advance(ctx, audit)
}

// insertNew inserts docs, skipping those whose id (or another unique key) exists, and returns
// how many it inserted.
func insertNew(ctx context.Context, c *mongo.Collection, docs []any) (int, error) {
	_, err := c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err == nil {
		return len(docs), nil
	}
	byIndex, ok := writeErrors(err)
	if !ok {
		return 0, translate("import "+c.Name(), err)
	}
	for _, code := range byIndex {
		if code != codeDuplicateKey {
			return 0, writeError("import "+c.Name(), code)
		}
	}
	return len(docs) - len(byIndex), nil
}

// Empty reports whether the store holds no tenant, staff user or record.
func (t *Transfer) Empty(ctx context.Context) (bool, error) {
	cols := []*mongo.Collection{t.s.Tenants.c, t.s.Staff.c}
	for _, kind := range tenants.Kinds() {
		c, _ := t.s.Records.col(kind)
		cols = append(cols, c)
	}
	for _, c := range cols {
		err := c.FindOne(ctx, bson.D{}, options.FindOne().SetProjection(bson.D{asc("_id")})).Err()
		if err == nil {
			return false, nil
		}
		if !errors.Is(err, mongo.ErrNoDocuments) {
			return false, translate("empty", err)
		}
	}
	return true, nil
}
