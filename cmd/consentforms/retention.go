package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/jobs"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/provision"
)

// catalogue lists tenants and forms for the retention job.
type catalogue struct{ s tenants.Stores }

func (c catalogue) ListTenants(ctx context.Context) ([]tenants.Tenant, error) {
	return c.s.Tenants.List(ctx)
}

func (c catalogue) ListForms(ctx context.Context, tenantID string) ([]tenants.Form, error) {
	return c.s.Forms.List(ctx, tenantID)
}

// defaultRetentionEvery is how often the retention job runs unless configured.
const defaultRetentionEvery = 10 * time.Minute

// parseRetentionEvery reads CONSENTFORMS_RETENTION_EVERY: empty is the default.
func parseRetentionEvery(s string) (time.Duration, error) {
	if s == "" {
		return defaultRetentionEvery, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("CONSENTFORMS_RETENTION_EVERY must be a duration such as 10m or 1h, or 0 to turn the retention job off")
	}
	return d, nil
}

// runRetention is `consentforms retention run`: the job once, now.
func runRetention(ctx context.Context, s tenants.Stores) (any, error) {
	cases := ops.New(ops.Config{Tenants: s.Tenants, Records: s.Records, Forms: s.Forms, Writer: s.Writer, Now: time.Now, Rights: s.Records, Audit: s.Audit})
	n, err := (&jobs.Passes{Ops: cases, Catalogue: catalogue{s}}).RunRetention(ctx)
	return map[string]any{"anonymised": n}, err
}

// retentionOptions are the --retention and --retention-from flags of a command.
type retentionOptions struct{ retention, from *string }

func retentionFlags(fs *flag.FlagSet) retentionOptions {
	return retentionOptions{
		retention: fs.String("retention", "", "keep records this long, then anonymise them: 90d, 2y, P2Y (empty: keep)"),
		from:      fs.String("retention-from", "", "what the retention counts from: created (default) or consents-lapsed"),
	}
}

// flagSet reports whether the command line set the flag, also to "".
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// tenantUpdates are the flags of `tenant update`, and which of them were given.
type tenantUpdates struct {
	retention                              retentionOptions
	country, stopWords                     *string
	setRetention, setCountry, setStopWords bool
	// identity holds the identity flags given: name and value.
	identity [][2]*string
}

// updateTenant is `tenant update`: --retention sets the default retention, --default-country
// the country national phone numbers are read in, --sms-stop-words the tenant's own SMS
// opt-out words; "" clears each. It prints the tenant's id and what it set.
func updateTenant(ctx context.Context, s tenants.Stores, tenantID string, u tenantUpdates) (any, error) {
	if !u.setRetention && !u.setCountry && !u.setStopWords && len(u.identity) == 0 {
		return nil, errors.New("give --retention, --default-country, --sms-stop-words, --legal-name, --contact-email, --privacy-url, --address and/or --jurisdiction (\"\" clears each)")
	}
	out := map[string]any{"id": tenantID}
	if len(u.identity) > 0 {
		var in provision.IdentityChange
		fields := map[string]**string{"legal-name": &in.LegalName, "contact-email": &in.ContactEmail, "privacy-url": &in.PrivacyURL,
			"address": &in.Address, "jurisdiction": &in.Jurisdiction}
		for _, f := range u.identity {
			*fields[*f[0]] = f[1]
		}
		t, err := provisioner(s).SetIdentity(ctx, cliActor, tenantID, in)
		if err != nil {
			return nil, flagErrors(err)
		}
		out["identity"] = t.Identity
	}
	if u.setCountry {
		t, err := provisioner(s).SetDefaultCountry(ctx, cliActor, tenantID, *u.country)
		if err != nil {
			return nil, err
		}
		out["defaultCountry"] = t.DefaultCountry
	}
	if u.setStopWords {
		t, err := provisioner(s).SetSMSStopWords(ctx, cliActor, tenantID, strings.Split(*u.stopWords, ","))
		if err != nil {
			return nil, err
		}
		out["smsStopWords"] = append([]string{}, t.SMSStopWords...)
	}
	if !u.setRetention {
		return out, nil
	}
	o := u.retention
	t, err := provisioner(s).SetTenantRetention(ctx, cliActor, tenantID, *o.retention, *o.from)
	if err != nil {
		return nil, err
	}
	return retentionOut(out, t.Retention, t.RetentionFrom), nil
}
