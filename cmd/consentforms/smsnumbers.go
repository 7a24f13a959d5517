package main

import (
	"context"
	"flag"
	"io"

	"github.com/consentforms/consentforms/tenants"
)

// smsNumberAdded is what tenant add-sms-number prints.
type smsNumberAdded struct {
	Tenant string `json:"tenant"`
	Number string `json:"number"`
	Added  bool   `json:"added"` // false: the tenant had it already
}

func tenantAddSMSNumber(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	number := fs.String("number", "", "a number the tenant sends its SMS from, in international form (+E.164)")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		n, added, err := provisioner(s).AddSMSNumber(ctx, cliActor, *tenant, *number)
		if err != nil {
			return nil, err
		}
		return smsNumberAdded{Tenant: *tenant, Number: n, Added: added}, nil
	}
}

func tenantRemoveSMSNumber(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	number := fs.String("number", "", "one of the tenant's sending numbers (+E.164)")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		if err := provisioner(s).RemoveSMSNumber(ctx, cliActor, *tenant, *number); err != nil {
			return nil, err
		}
		return map[string]any{"tenant": *tenant, "number": *number, "removed": true}, nil
	}
}
