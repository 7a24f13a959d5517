package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// auditVerify is `consentforms audit verify [--tenant ID]`: it walks the hash chains of the
// audit log (docs/API.md §9.1) and prints the report. A broken chain prints the report too,
// naming the first entry that does not fit, and fails the command (exit 1).
func auditVerify(stdout io.Writer, tenantID *string) func(context.Context, tenants.Stores) (any, error) {
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		if *tenantID != "" {
			if err := requireTenant(ctx, s, *tenantID); err != nil {
				return nil, err
			}
		}
		rep, err := tenants.VerifyChains(ctx, s.AuditChains, *tenantID, time.Now())
		if err != nil || rep.OK {
			return rep, err
		}
		if err := json.NewEncoder(stdout).Encode(rep); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("the audit chain of tenant %s is broken at entry %s", rep.TenantID, rep.BrokenID)
	}
}

// maxAckReason bounds an acknowledgment's reason, which the audit log keeps.
const maxAckReason = 500

// auditAcknowledge is `consentforms audit acknowledge --tenant T --entry ID --reason R`: an
// operator accepts the break that the tenant's last verification reports at entry ID (a
// restore, a known incident). Until then every verification reports it again. The
// acknowledgment is an audit entry (audit.acknowledged, actor cli) with the reason; it
// prints the verification that follows it.
func auditAcknowledge(tenantID, entryID, reason *string) func(context.Context, tenants.Stores) (any, error) {
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		if err := requireTenant(ctx, s, *tenantID); err != nil {
			return nil, err
		}
		r := strings.TrimSpace(*reason)
		switch {
		case *entryID == "":
			return nil, errors.New("--entry is required: the entry the break is reported at (audit verify prints it)")
		case r == "":
			return nil, errors.New("--reason is required: why the break is accepted (no personal data: the audit log keeps it)")
		case len(r) > maxAckReason:
			return nil, fmt.Errorf("--reason is longer than %d bytes", maxAckReason)
		}
		rep, err := tenants.AcknowledgeBreak(ctx, s.AuditChains, s.Audit, cliActor.Name, *tenantID, *entryID, r, time.Now())
		if errors.Is(err, tenants.ErrNotBroken) {
			return nil, fmt.Errorf("tenant %s: %w (run audit verify --tenant %s)", *tenantID, err, *tenantID)
		}
		return rep, err
	}
}
