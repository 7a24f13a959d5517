package ops

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/sealed"
)

// ReceiptKeys are the tenants' receipt signing keys (Ed25519): a signed receipt can be checked
// by anyone with the tenant's public keys (the JWKS), without trusting the database. A key's
// private half is kept sealed under the server's secrets key, as the tenant's secret of
// provider ProviderReceiptKeys, never in the clear. A new key's seed is derived from the
// server's key, the tenant and the key's generation, so that instances creating a tenant's
// first key (or a rotation's next) at once create the same one: no receipt is ever signed with
// a key that a concurrent write then drops. The seed is then kept (sealed), so that a later
// change of the server's key leaves every receipt signed before it verifiable.
type ReceiptKeys struct {
	Repo tenants.SMSRepo
	Keys func() *sealed.Keys
	// Derive is the server's key the seeds are derived from.
	Derive []byte
	Now    func() time.Time
}

// ProviderReceiptKeys names the sealed receipt signing keys among a tenant's provider secrets.
const ProviderReceiptKeys = "receipt-keys"

// ReceiptKey is one of a tenant's signing keys; Private is set only where it was opened.
type ReceiptKey struct {
	ID      string
	Public  ed25519.PublicKey
	Private ed25519.PrivateKey
	Created time.Time
}

// storedKey is a key as sealed (its JSON, under the secrets key): its generation, seed and
// when it was made.
type storedKey struct {
	Generation int
	Seed       []byte
	Created    time.Time
}

// Signing returns the tenant's newest key, made when it has none.
func (k ReceiptKeys) Signing(ctx context.Context, tenantID string) (ReceiptKey, error) {
	keys, err := k.All(ctx, tenantID)
	if err != nil {
		return ReceiptKey{}, err
	}
	if len(keys) == 0 {
		if keys, err = k.add(ctx, tenantID, nil); err != nil {
			return ReceiptKey{}, err
		}
	}
	return keys[len(keys)-1], nil
}

// Rotate gives the tenant a new signing key; the old ones stay listed, so that the receipts
// signed with them still verify. It returns the new key.
func (k ReceiptKeys) Rotate(ctx context.Context, tenantID string) (ReceiptKey, error) {
	keys, err := k.All(ctx, tenantID)
	if err != nil {
		return ReceiptKey{}, err
	}
	if keys, err = k.add(ctx, tenantID, keys); err != nil {
		return ReceiptKey{}, err
	}
	return keys[len(keys)-1], nil
}

// All returns the tenant's keys, oldest first; none when it never signed a receipt.
func (k ReceiptKeys) All(ctx context.Context, tenantID string) ([]ReceiptKey, error) {
	sec, err := k.Repo.Secret(ctx, tenantID, ProviderReceiptKeys)
	if errors.Is(err, tenants.ErrNotFound) {
		return []ReceiptKey{}, nil
	}
	if err != nil {
		return nil, err
	}
	plain, err := k.Keys().Open(sec.Sealed, tenants.SMSSecretOwner(tenantID, ProviderReceiptKeys))
	if err != nil {
		return nil, err
	}
	var stored []storedKey
	if err := json.Unmarshal([]byte(plain), &stored); err != nil {
		return nil, err
	}
	out := make([]ReceiptKey, len(stored))
	for i, s := range stored {
		if len(s.Seed) != ed25519.SeedSize {
			return nil, errors.New("receipt keys: a stored key has no seed")
		}
		out[i] = k.key(tenantID, s)
	}
	return out, nil
}

// add seals keys and one more generation, and reads back what is stored.
func (k ReceiptKeys) add(ctx context.Context, tenantID string, keys []ReceiptKey) ([]ReceiptKey, error) {
	stored := make([]storedKey, 0, len(keys)+1)
	for i, key := range keys {
		stored = append(stored, storedKey{Generation: i + 1, Seed: key.Private.Seed(), Created: key.Created})
	}
	stored = append(stored, storedKey{Generation: len(keys) + 1, Seed: k.seed(tenantID, len(keys)+1), Created: k.Now().UTC().Truncate(time.Second)})
	plain, err := json.Marshal(stored)
	if err != nil {
		return nil, err
	}
	value, err := k.Keys().Seal(string(plain), tenants.SMSSecretOwner(tenantID, ProviderReceiptKeys))
	if err != nil {
		return nil, err
	}
	if err := k.Repo.SetSecret(ctx, tenants.SMSSecret{TenantID: tenantID, Provider: ProviderReceiptKeys, Sealed: value, SetAt: k.Now()}); err != nil {
		return nil, err
	}
	return k.All(ctx, tenantID)
}

// seed is the seed of the tenant's key of generation gen.
func (k ReceiptKeys) seed(tenantID string, gen int) []byte {
	mac := hmac.New(sha256.New, k.Derive)
	mac.Write([]byte("consentforms receipt signing key\x00" + tenantID + "\x00" + strconv.Itoa(gen)))
	return mac.Sum(nil)
}

// key is the stored key s of the tenant.
func (k ReceiptKeys) key(tenantID string, s storedKey) ReceiptKey {
	priv := ed25519.NewKeyFromSeed(s.Seed)
	return ReceiptKey{ID: tenantID + ".r" + strconv.Itoa(s.Generation), Public: priv.Public().(ed25519.PublicKey), Private: priv, Created: s.Created}
}
