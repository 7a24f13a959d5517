package mongo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/consentforms/consentforms/tenants"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The collections besides the four of records (recordCollections).
const (
	colTenants = "tenants"
	colAPIKeys = "apikeys"
	colForms   = "forms"
	// The forms' published consent text versions (texts.go), append-only.
	colTexts    = "consenttexts"
	colStaff    = "staff"
	colTokens   = "webhooktokens"
	colAudit    = "audit"
	colClaims   = "erasureclaims"
	colSessions = "sessions"
	// The links of the tenants' audit chains (auditchain.go) and the last verification of
	// each chain, keyed by tenant id.
	colAuditLinks         = "auditlinks"
	colAuditVerifications = "auditverifications"
	// Inbound webhook diagnostics (webhookdiag.go).
	colWebhookDiag = "webhookdiag"
	colWebhookDays = "webhookdays"
	colEndpoints   = "webhookendpoints"
	colOutbox      = "webhookoutbox"
	colDeliveries  = "webhookdeliveries"
	colBulk        = "bulkerasures"
	// The leases of the once-per-cluster jobs (leases.go).
	colLeases = "leases"
	// The SMS provider secrets (sealed) and the inbound SMS message ids applied (sms.go).
	colSMSSecrets  = "smssecrets"
	colSMSMessages = "smsmessages"
	colSMSNumbers  = "smsnumbers"
	// The spam challenges of the web forms whose solutions were accepted (challenges.go).
	colChallenges = "spentchallenges"
	// The data-subject requests of the preference page (subjectrequests.go).
	colSubjectRequests = "subjectrequests"
)

// recordCollections maps each record kind to its collection.
var recordCollections = map[tenants.Kind]string{
	tenants.KindFormSubmission: "formSubmissions",
	tenants.KindDigitisation:   "digitisationSubmissions",
	tenants.KindCanvassing:     "canvassingSubmissions",
	tenants.KindPhoneCallTask:  "phoneCallTasks",
}

// index is one secondary index, created under its own name so that a start can tell which
// exist.
type index struct {
	name   string
	keys   bson.D
	unique bool
}

func asc(f string) bson.E  { return bson.E{Key: f, Value: 1} }
func desc(f string) bson.E { return bson.E{Key: f, Value: -1} }

// schema lists every collection with its indexes. Lists sort newest first with a tie-breaker
// (_id for records, the append sequence for audit entries), which ends each index that serves
// them, so that a page is read from the index in order rather than sorted in memory.
func schema() map[string][]index {
	byTenant := []index{{name: "tenant_created", keys: bson.D{asc("tenantId"), desc("createdAt")}}}
	s := map[string][]index{
		colTenants: {{name: "created", keys: bson.D{desc("createdAt")}}},
		colAPIKeys: byTenant,
		colTokens:  byTenant,
		colStaff:   append([]index{{name: "email", keys: bson.D{asc("email")}, unique: true}}, byTenant...),
		colForms:   {{name: "tenant_form", keys: bson.D{asc("tenantId"), asc("formId")}}},
		// A form's versions in publication order.
		colTexts: {{name: "tenant_form_published", keys: bson.D{asc("tenantId"), asc("formId"), asc("publishedAt"), asc("_id")}}},
		colAudit: {
			{name: "tenant_time", keys: bson.D{asc("tenantId"), desc("time"), desc("seq")}},
			{name: "tenant_action_time", keys: bson.D{asc("tenantId"), asc("action"), desc("time"), desc("seq")}},
			{name: "tenant_actor_time", keys: bson.D{asc("tenantId"), asc("actor"), desc("time"), desc("seq")}},
			// The platform admin's log spans tenants.
			{name: "time", keys: bson.D{desc("time"), desc("seq")}},
			// A tenant's hash chain in order (audit verify). Not unique: a unique index must
			// begin with the shard key; the links (auditlinks) keep places unique.
			{name: "tenant_chain", keys: bson.D{asc("tenantId"), asc("chain")}},
		},
		colAuditLinks:         {{name: "tenant_first", keys: bson.D{asc("tenantId"), desc("first")}}},
		colAuditVerifications: nil,
		colMeta:               nil, // one document per fact, read by _id
		// Read by _id (tenant:hash); expiresAt is when a document may be pruned.
		colSpentTokens: {{name: "tenant_expires", keys: bson.D{asc("tenantId"), asc("expiresAt")}}},
		colChallenges:  {{name: "tenant_expires", keys: bson.D{asc("tenantId"), asc("expiresAt")}}},
		colLeases:      {{name: "name_term", keys: bson.D{asc("name"), desc("term")}}},
		colWebhookDiag: {{name: "tenant_provider", keys: bson.D{asc("tenantId"), asc("provider")}}},
		colSMSSecrets:  {{name: "tenant_provider", keys: bson.D{asc("tenantId"), asc("provider")}}},
		// Read by _id (tenant, provider, message id), and across tenants by provider and id:
		// a message applies once, whichever tenant's URL it was posted to.
		colSMSMessages: {{name: "provider_message", keys: bson.D{asc("provider"), asc("messageId")}}},
		// A tenant's sending numbers, read by _id (tenant, number) and listed in order added.
		colSMSNumbers:  {{name: "tenant_added", keys: bson.D{asc("tenantId"), asc("addedAt")}}},
		colWebhookDays: {{name: "tenant_provider_day", keys: bson.D{asc("tenantId"), asc("provider"), desc("day")}}},
		colSessions:    {{name: "staff", keys: bson.D{asc("staffId")}}, {name: "expires", keys: bson.D{asc("expiresAt")}}},
		// By record (whose claim is the latest), and by erasure (a failed one gives its back).
		colClaims: {{name: "tenant_record_gen", keys: bson.D{asc("tenantId"), asc("recordId"), desc("gen")}},
			{name: "tenant_erasure", keys: bson.D{asc("tenantId"), asc("erasureId")}}},
		colEndpoints: {{name: "tenant_created", keys: bson.D{asc("tenantId"), asc("createdAt")}}},
		colBulk:      {{name: "tenant_requested", keys: bson.D{asc("tenantId"), desc("requestedAt")}}, {name: "status_expires", keys: bson.D{asc("status"), asc("expiresAt")}}},
		// One open request per person and kind (openKey); a tenant's list, a person's, a link's.
		colSubjectRequests: {{name: "tenant_open", keys: bson.D{asc("tenantId"), asc("openKey")}, unique: true},
			{name: "tenant_filed", keys: bson.D{asc("tenantId"), desc("filedAt")}},
			{name: "tenant_subject", keys: bson.D{asc("tenantId"), asc("subject")}},
			{name: "tenant_record", keys: bson.D{asc("tenantId"), asc("recordId")}}},
		// The dispatcher spans tenants: the events in order, the deliveries due, those to prune.
		colOutbox: {{name: "time", keys: bson.D{asc("time"), asc("_id")}}},
		colDeliveries: {
			// The due deliveries; the endpoint in the key lets the dispatcher's read pass over
			// the endpoints it skips (Outbox.Due) in the index, without fetching them.
			{name: "status_next_endpoint", keys: bson.D{asc("status"), asc("nextAt"), asc("endpointId")}},
			{name: "tenant_endpoint_created", keys: bson.D{asc("tenantId"), asc("endpointId"), desc("createdAt"), desc("_id")}},
			{name: "created", keys: bson.D{asc("createdAt")}},
		},
	}
	for _, name := range recordCollections {
		s[name] = []index{
			{name: "tenant_created", keys: bson.D{asc("tenantId"), desc("createdAt"), desc("_id")}},
			{name: "tenant_form_created", keys: bson.D{asc("tenantId"), asc("formId"), desc("createdAt"), desc("_id")}},
			// Multikey: one entry per match key, so a person's records are found without
			// reading anyone else's.
			{name: "tenant_matchkeys", keys: bson.D{asc("tenantId"), asc("matchKeys")}},
			// The expiry job spans tenants by nature; records with nothing left to expire
			// hold null here.
			{name: "next_deadline", keys: bson.D{asc("nextDeadline")}},
		}
		s[name] = append(s[name], rightsIndexes()...)
	}
	return s
}

// obsolete lists, per collection, the indexes an earlier version created that a later one
// replaced: the start drops them (createSchema).
var obsolete = map[string][]string{
	colDeliveries: {"status_next"}, // replaced by status_next_endpoint (2026-11-26)
}

// schemaFingerprint is a SHA-256 over every collection of schema() with its indexes (names,
// keys, uniqueness), in a fixed order: it changes with any change to what ensureSchema creates.
func schemaFingerprint() string {
	s := schema()
	cols := slices.Sorted(maps.Keys(s))
	h := sha256.New()
	for _, col := range cols {
		fmt.Fprintf(h, "%s\n", col)
		for _, ix := range s[col] {
			fmt.Fprintf(h, "\t%s %v %t\n", ix.name, ix.keys, ix.unique)
		}
		for _, name := range obsolete[col] {
			fmt.Fprintf(h, "\tdrop %s\n", name)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// schemaRecorded reports whether the database records that a complete ensureSchema of this
// schema (schemaFingerprint) ran on it.
func schemaRecorded(ctx context.Context, db *mongo.Database, fingerprint string) bool {
	var d struct {
		Value string `bson:"value"`
	}
	err := db.Collection(colMeta).FindOne(ctx, byID("schema")).Decode(&d)
	return err == nil && d.Value == fingerprint
}

// ensureSchema creates the collections and indexes that are missing. It lists what exists and
// creates each collection's missing indexes in one createIndexes (FerretDB drops the
// connection when one createIndexes names an index that exists already, and MongoDB needs no
// more), then records the schema's fingerprint in storemeta. With trustRecorded (a CLI
// command) a database whose recorded fingerprint is this code's is taken as complete: one
// read instead of a listIndexes per collection. The server's start always lists and
// repairs, so an index dropped by hand comes back at the next start.
func ensureSchema(ctx context.Context, db *mongo.Database, trustRecorded bool) error {
	fingerprint := schemaFingerprint()
	if trustRecorded && schemaRecorded(ctx, db, fingerprint) {
		return nil
	}
	if err := createSchema(ctx, db); err != nil {
		return err
	}
	_, err := db.Collection(colMeta).UpdateOne(ctx, byID("schema"), bson.D{{Key: "$set", Value: bson.D{{Key: "value", Value: fingerprint}}}},
		options.UpdateOne().SetUpsert(true))
	return translate("record the schema", err)
}

// createSchema creates what ensureSchema finds missing.
func createSchema(ctx context.Context, db *mongo.Database) error {
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return translate("list collections", err)
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for col, indexes := range schema() {
		if !have[col] {
			if err := db.CreateCollection(ctx, col); err != nil && !isNamespaceExists(err) {
				return translate("create collection "+col, err)
			}
		}
		c := db.Collection(col)
		specs, err := c.Indexes().ListSpecifications(ctx)
		if err != nil {
			return translate("list indexes of "+col, err)
		}
		have := map[string]bool{}
		for _, sp := range specs {
			have[sp.Name] = true
		}
		if err := backfillLapsed(ctx, c, indexes, have); err != nil {
			return err
		}
		if err := ensureIndexes(ctx, c, indexes, have); err != nil {
			return err
		}
		for _, name := range obsolete[col] {
			if have[name] {
				if err := c.Indexes().DropOne(ctx, name); err != nil && !isIndexNotFound(err) {
					return translate("drop index "+name+" of "+col, err)
				}
			}
		}
	}
	return nil
}

// ensureIndexes creates, in one command, those of want that the collection lacks (have: the
// names of the indexes it has).
func ensureIndexes(ctx context.Context, c *mongo.Collection, want []index, have map[string]bool) error {
	var missing []mongo.IndexModel
	for _, ix := range want {
		if have[ix.name] {
			continue
		}
		opts := options.Index().SetName(ix.name)
		if ix.unique {
			opts.SetUnique(true)
		}
		missing = append(missing, mongo.IndexModel{Keys: ix.keys, Options: opts})
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := c.Indexes().CreateMany(ctx, missing); err != nil {
		return translate("create indexes of "+c.Name(), err)
	}
	return nil
}

// isIndexNotFound reports an index dropped meanwhile by another process.
func isIndexNotFound(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == 27
}

// isNamespaceExists reports a collection created meanwhile by another process.
func isNamespaceExists(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == 48
}
