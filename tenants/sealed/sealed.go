// Package sealed encrypts the provider secrets a tenant stores (an SMS provider's auth token
// or signature secret) under a server key that never enters the database: AES-256-GCM, a
// fresh random nonce per value, the value's owner (tenant and provider) bound in as
// additional data so that a sealed value copied onto another tenant does not open.
package sealed

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
)

// ErrUnreadable reports a sealed value that no key opens (damaged, moved, or sealed under a
// key the server no longer holds).
var ErrUnreadable = errors.New("sealed value cannot be opened")

// Key is one server key: 32 bytes and its id, written into every value it seals.
type Key struct {
	ID  string
	Key []byte
}

// Keys seals under the current key and opens under any key it holds (the current one and
// those retired by a rotation not yet finished).
type Keys struct {
	current Key
	all     map[string][]byte
}

// New returns the keys with current first; keys of the wrong length are refused.
func New(current Key, retired ...Key) (*Keys, error) {
	k := &Keys{current: current, all: map[string][]byte{}}
	for _, key := range append([]Key{current}, retired...) {
		if len(key.Key) != 32 || key.ID == "" || strings.Contains(key.ID, ".") {
			return nil, errors.New("sealed: a key is 32 bytes with an id without dots")
		}
		k.all[key.ID] = key.Key
	}
	return k, nil
}

// CurrentID is the id of the key new values are sealed under.
func (k *Keys) CurrentID() string { return k.current.ID }

// Seal encrypts plaintext for owner: "v1.<key id>.<base64 nonce+ciphertext>".
func (k *Keys) Seal(plaintext, owner string) (string, error) {
	aead, err := gcm(k.current.Key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := aead.Seal(nonce, nonce, []byte(plaintext), []byte(owner))
	return "v1." + k.current.ID + "." + base64.RawStdEncoding.EncodeToString(out), nil
}

// Open decrypts a value Seal made for owner.
func (k *Keys) Open(value, owner string) (string, error) {
	parts := strings.SplitN(value, ".", 3)
	if len(parts) != 3 || parts[0] != "v1" {
		return "", ErrUnreadable
	}
	key, ok := k.all[parts[1]]
	if !ok {
		return "", ErrUnreadable
	}
	raw, err := base64.RawStdEncoding.DecodeString(parts[2])
	if err != nil {
		return "", ErrUnreadable
	}
	aead, err := gcm(key)
	if err != nil || len(raw) < aead.NonceSize() {
		return "", ErrUnreadable
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(owner))
	if err != nil {
		return "", ErrUnreadable
	}
	return string(plain), nil
}

// Current reports whether value was sealed under the current key (a rotation re-seals the others).
func (k *Keys) Current(value string) bool {
	return strings.HasPrefix(value, "v1."+k.current.ID+".")
}

func gcm(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
