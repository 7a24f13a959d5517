// Package policies holds the casbin model and policy that decide authorization, embedded,
// and the enforcer built from them.
package policies

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/casbin/casbin/v2"
	"github.com/casbin/casbin/v2/model"
	stringadapter "github.com/casbin/casbin/v2/persist/string-adapter"
)

//go:embed model.conf
var modelText string

//go:embed policy.csv
var policyText string

// Enforcer decides whether a subject may do an action on an object. The policy is fixed at
// build time, so decisions are memoised.
type Enforcer struct {
	e    *casbin.Enforcer
	memo sync.Map
}

// New builds the enforcer from the embedded model and policy.
func New() (*Enforcer, error) {
	m, err := model.NewModelFromString(modelText)
	if err != nil {
		return nil, fmt.Errorf("casbin model: %w", err)
	}
	var lines []string
	for _, l := range strings.Split(policyText, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	e, err := casbin.NewEnforcer(m, stringadapter.NewAdapter(strings.Join(lines, "\n")))
	if err != nil {
		return nil, fmt.Errorf("casbin enforcer: %w", err)
	}
	return &Enforcer{e: e}, nil
}

// Allowed reports whether sub may do act on obj.
func (e *Enforcer) Allowed(sub, obj, act string) bool {
	k := sub + "\x00" + obj + "\x00" + act
	if v, ok := e.memo.Load(k); ok {
		return v.(bool)
	}
	ok, err := e.e.Enforce(sub, obj, act)
	ok = ok && err == nil
	e.memo.Store(k, ok)
	return ok
}

// ScopesAllow reports whether any of an API key's scopes allows act on obj.
func (e *Enforcer) ScopesAllow(scopes []string, obj, act string) bool {
	for _, s := range scopes {
		if e.Allowed("scope:"+s, obj, act) {
			return true
		}
	}
	return false
}

// RoleAllows reports whether a staff role allows act on obj.
func (e *Enforcer) RoleAllows(role, obj, act string) bool {
	return e.Allowed("role:"+role, obj, act)
}
