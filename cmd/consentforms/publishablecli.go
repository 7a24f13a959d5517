package main

import (
	"context"
	"errors"
	"flag"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
)

// publishableOptions are key create's flags for a publishable key.
type publishableOptions struct {
	publishable    *bool
	forms, origins *string
}

func publishableFlags(fs *flag.FlagSet) publishableOptions {
	return publishableOptions{
		publishable: fs.Bool("publishable", false, "issue a publishable key (cf_pk_…) for web pages: submissions:write only, bound to --forms and --origins"),
		forms:       fs.String("forms", "", "publishable key: comma-separated form ids it may submit to"),
		origins:     fs.String("origins", "", "publishable key: comma-separated web origins it may be used from (https://www.example.org)"),
	}
}

// createPublishableKey issues a publishable key and prints
// {"id","key","scopes":["submissions:write"],"forms":[…],"origins":[…]}.
func createPublishableKey(ctx context.Context, s tenants.Stores, tenantID, scopes, name, expires string, o publishableOptions) (any, error) {
	var exp *time.Time
	if err := keyExpiry(expires, &exp); err != nil {
		return nil, err
	}
	k, plain, err := provisioner(s).IssueKey(ctx, cliActor, provision.KeyInput{TenantID: tenantID, Name: name, Scopes: commaList(scopes),
		ExpiresAt: exp, Publishable: true, Forms: commaList(*o.forms), Origins: commaList(*o.origins)})
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": k.ID, "key": plain, "scopes": k.Scopes, "forms": k.Forms, "origins": k.Origins}, nil
}

// commaList splits a comma-separated flag, dropping empty items.
func commaList(v string) []string {
	var list []string
	for _, x := range strings.Split(v, ",") {
		if x = strings.TrimSpace(x); x != "" {
			list = append(list, x)
		}
	}
	return list
}

// keyExpiry reads --expires into exp: "" leaves it nil, never expiring.
func keyExpiry(expires string, exp **time.Time) error {
	if expires == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, expires)
	if err != nil {
		return errors.New("--expires must be an RFC 3339 date-time")
	}
	*exp = &t
	return nil
}
