package ops_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/sealed"
)

// TestReceiptKeysSealedDerivedAndRotated: two instances making a tenant's first signing key at
// once make the same key (it is derived from the server's key), so no receipt is signed with a
// key a concurrent write drops; the key is kept sealed, its seed nowhere in the stored value; a
// rotation adds a key and keeps the old one listed; another server key derives other keys.
func TestReceiptKeysSealedDerivedAndRotated(t *testing.T) {
	ctx := context.Background()
	c := newIntakeCase(t)
	seal, err := sealed.New(sealed.Key{ID: "1", Key: bytes.Repeat([]byte{7}, 32)})
	must(t, err)
	instance := func(derive string) ops.ReceiptKeys {
		return ops.ReceiptKeys{Repo: c.st.SMS, Keys: func() *sealed.Keys { return seal }, Derive: []byte(derive), Now: time.Now}
	}
	a, b := instance("server key"), instance("server key")
	ka, err := a.Signing(ctx, c.tenant.ID)
	must(t, err)
	kb, err := b.Signing(ctx, c.tenant.ID)
	must(t, err)
	if ka.ID != c.tenant.ID+".r1" || !ka.Public.Equal(kb.Public) {
		t.Fatalf("two instances' first keys: %s %x, %s %x", ka.ID, ka.Public, kb.ID, kb.Public)
	}
	stored, err := c.st.SMS.Secret(ctx, c.tenant.ID, ops.ProviderReceiptKeys)
	must(t, err)
	if strings.Contains(stored.Sealed, string(ka.Private.Seed())) || strings.Contains(stored.Sealed, "seed") {
		t.Errorf("the stored key is not sealed: %q", stored.Sealed)
	}
	rotated, err := b.Rotate(ctx, c.tenant.ID)
	must(t, err)
	all, err := a.All(ctx, c.tenant.ID)
	must(t, err)
	if rotated.ID != c.tenant.ID+".r2" || len(all) != 2 || !all[0].Public.Equal(ka.Public) || !all[1].Public.Equal(rotated.Public) {
		t.Errorf("after a rotation: new %s, all %d keys", rotated.ID, len(all))
	}
	if now, err := a.Signing(ctx, c.tenant.ID); err != nil || now.ID != rotated.ID {
		t.Errorf("signing after the rotation with %s (%v), want %s", now.ID, err, rotated.ID)
	}
	elsewhere := instance("another server key")
	elsewhere.Repo = newIntakeCase(t).st.SMS
	ko, err := elsewhere.Signing(ctx, c.tenant.ID)
	must(t, err)
	if ko.Public.Equal(ka.Public) {
		t.Error("another server key derived the same key for the same tenant")
	}
}
