package main

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/sealed"
)

// derivedSecretsKeyID names the secrets key derived from the HMAC key, which seals the
// tenants' provider secrets until the first rotation writes a key of its own into the file.
const derivedSecretsKeyID = "0"

// secretsKeys are the keys that seal and open the tenants' provider secrets: the file's
// secrets key (or, before any rotation and with keys from the environment, one derived from
// the HMAC key), then the keys a rotation still in progress retired.
func (s secrets) secretsKeys() *sealed.Keys {
	cur := sealed.Key{ID: derivedSecretsKeyID, Key: derive(s.HMAC, "consentforms provider secrets key")}
	if len(s.SecretsKey) == 32 {
		cur = sealed.Key{ID: cmp.Or(s.SecretsKeyID, "1"), Key: s.SecretsKey}
	}
	var retired []sealed.Key
	for _, r := range s.RetiredSecretsKeys {
		if len(r.Key) == 32 && r.ID != cur.ID {
			retired = append(retired, sealed.Key{ID: r.ID, Key: r.Key})
		}
	}
	k, err := sealed.New(cur, retired...)
	if err != nil {
		k, _ = sealed.New(cur)
	}
	return k
}

func derive(key []byte, label string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// SecretsKeys are the provider-secret keys now (re-read from the secrets file when it changed,
// so that a rotation reaches a running server within keyringCheck).
func (k *keyring) SecretsKeys() *sealed.Keys { return k.current().secretsKeys() }

// resealSecrets re-seals every tenant's provider secret that is not sealed under keys'
// current key. It returns how many it re-sealed and how many no key opens (their owners must
// set them again: the secrets file they were sealed under is gone).
func resealSecrets(ctx context.Context, repo tenants.SMSRepo, keys *sealed.Keys) (resealed, lost int, err error) {
	all, err := repo.AllSecrets(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, s := range all {
		if keys.Current(s.Sealed) {
			continue
		}
		owner := tenants.SMSSecretOwner(s.TenantID, s.Provider)
		plain, err := keys.Open(s.Sealed, owner)
		if err != nil {
			lost++
			continue
		}
		if s.Sealed, err = keys.Seal(plain, owner); err != nil {
			return resealed, lost, err
		}
		if err := repo.SetSecret(ctx, s); err != nil {
			return resealed, lost, err
		}
		resealed++
	}
	return resealed, lost, nil
}

// rotateSecretsKeyCommand is `consentforms secrets rotate-secrets-key`: a fresh secrets key is
// written into the secrets file (the old one kept as retired meanwhile), every provider secret
// is re-sealed under it, then the old key is dropped from the file. Running servers pick the
// new file up within keyringCheck; a run stopped part-way is finished by running it again.
func rotateSecretsKeyCommand(ctx context.Context, cfg Config, args []string, stdout, _ io.Writer) error {
	const name = "secrets rotate-secrets-key"
	if done, err := parseFlags(name, quietFlags(name), args, stdout); done {
		return err
	}
	out, err := rotateSecretsKey(ctx, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return json.NewEncoder(stdout).Encode(out)
}

func rotateSecretsKey(ctx context.Context, cfg Config) (map[string]any, error) {
	if cfg.HMACKey != "" || cfg.SessionKey != "" {
		return nil, errors.New("the keys come from the environment: the secrets key is derived from CONSENTFORMS_HMAC_KEY and cannot be rotated alone")
	}
	s, err := readSecretsFile(cfg)
	if err != nil {
		return nil, err
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer store.Close(context.Background())
	old := s.secretsKeys()
	oldKey := s.SecretsKey
	if len(oldKey) != 32 {
		oldKey = derive(s.HMAC, "consentforms provider secrets key")
	}
	s.RetiredSecretsKeys = append(s.RetiredSecretsKeys, retiredKey{ID: old.CurrentID(), Key: oldKey, RetiredAt: time.Now().UTC()})
	s.SecretsKey = make([]byte, 32)
	_, _ = rand.Read(s.SecretsKey)
	s.SecretsKeyID = "1"
	if old.CurrentID() != derivedSecretsKeyID {
		s.SecretsKeyID = nextKeyID(old.CurrentID())
	}
	if err := replaceSecrets(cfg.SecretsFile, s); err != nil {
		return nil, err
	}
	resealed, lost, err := resealSecrets(ctx, store.SMS, s.secretsKeys())
	if err != nil {
		return nil, fmt.Errorf("re-sealing (run the command again to finish): %w", err)
	}
	s.RetiredSecretsKeys = nil
	if err := replaceSecrets(cfg.SecretsFile, s); err != nil {
		return nil, err
	}
	return map[string]any{"secretsKeyId": s.SecretsKeyID, "retired": old.CurrentID(), "resealed": resealed, "unreadable": lost}, nil
}

// smsSecretSet is what tenant set-sms-secret prints: never the secret.
type smsSecretSet struct {
	Tenant   string `json:"tenant"`
	Provider string `json:"provider"`
	Set      bool   `json:"set"`
}

func tenantSMSSecret(fs *flag.FlagSet, cfg Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	provider := fs.String("provider", "", "twilio|telnyx|vonage")
	secret := fs.String("secret", "", "Twilio: the auth token; Telnyx: the account's base64 Ed25519 public key; Vonage: the signature secret")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		keys, err := loadSecrets(cfg)
		if err != nil {
			return nil, err
		}
		p := provisioner(s)
		p.SMS, p.SecretsKeys = s.SMS, keys.secretsKeys
		if err := p.SetSMSSecret(ctx, cliActor, *tenant, *provider, *secret); err != nil {
			return nil, err
		}
		return smsSecretSet{Tenant: *tenant, Provider: *provider, Set: true}, nil
	}
}
