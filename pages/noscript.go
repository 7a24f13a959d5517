package pages

import (
	"errors"
	"time"

	"github.com/consentforms/consentforms/clientaddr"
	"github.com/hashicorp/golang-lru/v2/expirable"
)

// errNoScriptLimit is a submission without the challenge past its limits (429).
var errNoScriptLimit = errors.New("pages: too many submissions without the challenge")

// noScriptLimits bound the submissions a form takes without the spam challenge (where it
// allows them): per client address (IPv6: per /64) and form, and per form from all addresses.
// A person without script can sign; a script that skips the challenge gets a handful an hour.
type noScriptLimits struct {
	perAddr, perForm *addrLimiter
}

func newNoScriptLimits(perAddr, perForm int, now func() time.Time) *noScriptLimits {
	if perAddr <= 0 {
		perAddr = DefaultNoScriptPerHour
	}
	if perForm <= 0 {
		perForm = DefaultNoScriptFormPerHour
	}
	return &noScriptLimits{perAddr: newHourlyLimiter(perAddr, now), perForm: newHourlyLimiter(perForm, now)}
}

// take counts one submission of addr to hf's form; errNoScriptLimit when a limit is spent.
// It runs once the rules have passed, so a refused post counts nothing.
func (l *noScriptLimits) take(hf hostedForm, addr string) error {
	form := hf.tenant.ID + "/" + hf.form.FormID
	if l.perAddr.peek(form+"|"+clientaddr.Group(addr)) || l.perForm.peek(form) {
		return errNoScriptLimit
	}
	l.perAddr.take(form + "|" + clientaddr.Group(addr))
	l.perForm.take(form)
	return nil
}

// newHourlyLimiter is a token bucket per key allowing perHour an hour, all of them at once at most.
func newHourlyLimiter(perHour int, now func() time.Time) *addrLimiter {
	return &addrLimiter{lru: expirable.NewLRU[string, bucket](100_000, nil, 2*time.Hour),
		rate: float64(perHour) / 3600, burst: float64(perHour), now: now}
}

// peek reports whether key's bucket is empty, spending nothing.
func (l *addrLimiter) peek(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.lru.Get(key)
	if !ok {
		return false
	}
	return min(l.burst, b.tokens+l.now().Sub(b.at).Seconds()*l.rate) < 1
}
