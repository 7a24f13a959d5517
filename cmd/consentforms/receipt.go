package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/sealed"
	"github.com/golang-jwt/jwt/v5"
)

// receiptKeysOf are the tenants' receipt signing keys on the store, sealed under seal (the
// server's secrets keys) and derived, when new, from its HMAC key: the one wiring the server and
// the command line share, so that both derive the same keys.
func receiptKeysOf(repo tenants.SMSRepo, seal func() *sealed.Keys, hmacKey []byte) ops.ReceiptKeys {
	return ops.ReceiptKeys{Repo: repo, Keys: seal, Derive: derive(hmacKey, "consentforms receipt signing keys"), Now: time.Now}
}

// keyRotated is what tenant rotate-receipt-key prints.
type keyRotated struct {
	Tenant string `json:"tenant"`
	KeyID  string `json:"kid"`
	Keys   int    `json:"keys"`
}

// tenantRotateReceiptKey is `tenant rotate-receipt-key --tenant ID`: the tenant's receipts are
// signed with a new key from now on; the old keys stay in its JWKS, so that every receipt signed
// before still verifies.
func tenantRotateReceiptKey(fs *flag.FlagSet, cfg Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		if err := requireTenant(ctx, s, *tenant); err != nil {
			return nil, err
		}
		keys, err := loadSecrets(cfg)
		if err != nil {
			return nil, err
		}
		rk := receiptKeysOf(s.SMS, keys.secretsKeys, keys.HMAC)
		if _, err := rk.Signing(ctx, *tenant); err != nil {
			return nil, err
		}
		k, err := rk.Rotate(ctx, *tenant)
		if err != nil {
			return nil, err
		}
		all, err := rk.All(ctx, *tenant)
		if err != nil {
			return nil, err
		}
		return keyRotated{Tenant: *tenant, KeyID: k.ID, Keys: len(all)}, nil
	}
}

// verified is what receipt verify prints.
type verified struct {
	Valid    bool              `json:"valid"`
	KeyID    string            `json:"kid,omitempty"`
	RecordID string            `json:"recordId,omitempty"`
	Tenant   string            `json:"tenant,omitempty"`
	Events   []json.RawMessage `json:"events,omitempty"`
	Reason   string            `json:"reason,omitempty"`
}

// receiptVerify is `receipt verify --file F [--jwks URL|FILE]`: it checks a signed receipt
// (the compact JWS of …/receipt?format=jws) against the tenant's public keys — a JWKS file, or
// its address (by default the server's, CONSENTFORMS_PUBLIC_URL, for the receipt's tenant) —
// and prints the receipt's record id and events. A receipt that does not verify prints the
// reason and exits 1.
func receiptVerify(ctx context.Context, cfg Config, args []string, stdout, _ io.Writer) error {
	fs := quietFlags("receipt verify")
	file := fs.String("file", "", "the signed receipt (compact JWS), - for standard input")
	jwksAt := fs.String("jwks", "", "the tenant's keys: a JWKS file, or its URL (default: the server's, from CONSENTFORMS_PUBLIC_URL)")
	if done, err := parseFlags("receipt verify", fs, args, stdout); done {
		return err
	}
	if *file == "" {
		return &usageError{err: errors.New("receipt verify: --file is required"), usage: commandUsage("receipt verify", fs)}
	}
	raw, err := readInput(*file)
	if err != nil {
		return err
	}
	out, err := verifyReceipt(ctx, cfg, strings.TrimSpace(string(raw)), *jwksAt)
	if err != nil {
		out = verified{Reason: err.Error()}
	}
	if encErr := json.NewEncoder(stdout).Encode(out); encErr != nil {
		return encErr
	}
	if !out.Valid {
		return fmt.Errorf("the receipt does not verify: %s", out.Reason)
	}
	return nil
}

// readInput reads a file, or standard input for "-".
func readInput(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(io.LimitReader(os.Stdin, 16<<20))
	}
	return os.ReadFile(path)
}

// verifyReceipt checks the compact JWS token against the keys at jwksAt.
func verifyReceipt(ctx context.Context, cfg Config, token, jwksAt string) (verified, error) {
	claims := jwt.MapClaims{}
	var keyID string
	_, err := jwt.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		keyID, _ = t.Header["kid"].(string)
		if keyID == "" {
			return nil, errors.New("the receipt names no key (kid)")
		}
		tenant, _, _ := strings.Cut(keyID, ".")
		set, err := loadJWKS(ctx, cfg, jwksAt, tenant)
		if err != nil {
			return nil, err
		}
		for _, k := range set.Keys {
			if k.Kid == keyID && k.Kty == "OKP" && k.Crv == "Ed25519" {
				pub, err := base64.RawURLEncoding.DecodeString(k.X)
				if err != nil || len(pub) != ed25519.PublicKeySize {
					return nil, fmt.Errorf("key %s in the key set is not an Ed25519 public key", keyID)
				}
				return ed25519.PublicKey(pub), nil
			}
		}
		return nil, fmt.Errorf("key %s is not in the tenant's key set", keyID)
	}, jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}))
	if err != nil {
		return verified{KeyID: keyID}, err
	}
	out := verified{Valid: true, KeyID: keyID}
	out.RecordID, _ = claims["dct:identifier"].(string)
	if c, ok := claims["dpv:hasDataController"].(map[string]any); ok {
		out.Tenant, _ = c["dct:identifier"].(string)
	}
	events, _ := claims["cf:events"].([]any)
	for _, e := range events {
		b, _ := json.Marshal(e)
		out.Events = append(out.Events, b)
	}
	return out, nil
}

// jwkSet is a JWKS as the server serves it.
type jwkSet struct {
	Keys []struct {
		Kty, Crv, X, Kid string
	} `json:"keys"`
}

// loadJWKS reads the key set from a file or URL; with at empty, from the server's public URL
// for tenant.
func loadJWKS(ctx context.Context, cfg Config, at, tenant string) (jwkSet, error) {
	if at == "" {
		if cfg.PublicURL == "" {
			return jwkSet{}, errors.New("give --jwks (a file or URL): CONSENTFORMS_PUBLIC_URL is not set")
		}
		at = strings.TrimRight(cfg.PublicURL, "/") + "/.well-known/jwks.json?tenant=" + url.QueryEscape(tenant)
	}
	var raw []byte
	if strings.HasPrefix(at, "http://") || strings.HasPrefix(at, "https://") {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, at, nil)
		if err != nil {
			return jwkSet{}, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return jwkSet{}, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return jwkSet{}, fmt.Errorf("the key set at %s answered %d", at, resp.StatusCode)
		}
		if raw, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20)); err != nil {
			return jwkSet{}, err
		}
	} else {
		var err error
		if raw, err = os.ReadFile(at); err != nil {
			return jwkSet{}, err
		}
	}
	var set jwkSet
	if err := json.Unmarshal(raw, &set); err != nil {
		return jwkSet{}, fmt.Errorf("the key set is not a JWKS: %v", err)
	}
	return set, nil
}
