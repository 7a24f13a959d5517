package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/dispatch"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// webhookConfig reads the outgoing webhook settings (docs/WEBHOOKS.md §Settings).
func webhookConfig(getenv func(string) string) (dispatch.Config, error) {
	var c dispatch.Config
	if v := getenv("CONSENTFORMS_WEBHOOK_ALLOW_INSECURE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, errors.New("CONSENTFORMS_WEBHOOK_ALLOW_INSECURE: use 1 or 0")
		}
		c.Policy.AllowInsecure = b
	}
	if v := getenv("CONSENTFORMS_WEBHOOK_PER_ENDPOINT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > dispatch.MaxPerEndpoint {
			return c, fmt.Errorf("CONSENTFORMS_WEBHOOK_PER_ENDPOINT: want a whole number from 1 to %d", dispatch.MaxPerEndpoint)
		}
		c.PerEndpoint = n
	}
	for _, d := range []struct {
		env string
		dst *time.Duration
	}{
		{"CONSENTFORMS_WEBHOOK_BACKOFF", &c.Base},
		{"CONSENTFORMS_WEBHOOK_RETRY_WINDOW", &c.Window},
		{"CONSENTFORMS_WEBHOOK_POLL", &c.Interval},
		{"CONSENTFORMS_WEBHOOK_TIMEOUT", &c.Timeout},
	} {
		if v := getenv(d.env); v != "" {
			x, err := time.ParseDuration(v)
			if err != nil || x <= 0 {
				return c, fmt.Errorf("%s: want a positive Go duration such as 30s", d.env)
			}
			*d.dst = x
		}
	}
	return c, nil
}

func webhookCreate(fs *flag.FlagSet, cfg Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	url := fs.String("url", "", "the endpoint's https:// URL")
	events := fs.String("events", "", "comma-separated: "+strings.Join(tenants.EventTypes(), ",")+", or all")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return createEndpoint(ctx, s, cfg.Webhooks.Policy, *tenant, *url, *events)
	}
}

func webhookList(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		if err := requireTenant(ctx, s, *tenant); err != nil {
			return nil, err
		}
		list, err := s.Outbox.Endpoints(ctx, *tenant)
		out := make([]map[string]any, len(list))
		for i, e := range list {
			out[i] = map[string]any{"id": e.ID, "url": e.URL, "events": e.Events, "createdAt": e.CreatedAt, "failingSince": e.FailingSince}
		}
		return map[string]any{"endpoints": out}, err
	}
}

func webhookDelete(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	id := fs.String("id", "", "endpoint id")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return map[string]any{"id": *id, "deleted": true}, provisioner(s).DeleteEndpoint(ctx, cliActor, *tenant, *id)
	}
}

func createEndpoint(ctx context.Context, s tenants.Stores, p webhook.Policy, tenantID, url, events string) (any, error) {
	e, err := provisionOn(s, p, nil).CreateEndpoint(ctx, cliActor, provision.EndpointInput{TenantID: tenantID, URL: url, Events: events})
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": e.ID, "url": e.URL, "events": e.Events, "secret": e.Secret}, nil
}
