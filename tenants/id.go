package tenants

import (
	"crypto/rand"
	"time"
)

// idAlphabet is base32 with the digits first, so the characters sort as the values they stand for.
const idAlphabet = "234567abcdefghijklmnopqrstuvwxyz"

// NewID is the one id generator of the product: prefix, then 26 characters of an order-preserving
// base32 holding 48 bits of Unix milliseconds and 80 random bits. Ids made one after another sort
// together, so a store's unique index of ids grows at its end rather than at a random page per row,
// and 80 random bits keep ids made in the same millisecond apart. Record public ids use no prefix;
// other ids carry a short one naming their kind ("t_", "u_", "f_"…).
func NewID(prefix string) string {
	return newIDAt(prefix, time.Now())
}

func newIDAt(prefix string, now time.Time) string {
	var b [16]byte
	ms := uint64(now.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	_, _ = rand.Read(b[6:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	out := make([]byte, 0, len(prefix)+26)
	out = append(out, prefix...)
	var acc, bits uint
	for _, x := range b {
		acc = acc<<8 | uint(x)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out = append(out, idAlphabet[(acc>>bits)&31])
		}
	}
	if bits > 0 {
		out = append(out, idAlphabet[(acc<<(5-bits))&31])
	}
	return string(out)
}
