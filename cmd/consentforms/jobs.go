package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/jobs"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// How often the expiry job records passed deadlines, and the bulk erasure job looks for
// approved and expired requests.
const (
	expiryEvery = 30 * time.Second
	bulkEvery   = time.Second
)

// serverJobs is the background work of a server, started and stopped as one group
// (package jobs); a job's failure is logged, counted, and the job goes on.
func serverJobs(cfg Config, store tenants.Stores, svc *ops.Service, retentionEvery time.Duration, log *slog.Logger) []jobs.Job {
	failed := func(name string, err error) {
		svc.ObserveError(err)
		log.Warn(name, "err", err)
	}
	js := []jobs.Job{
		jobs.Every("expiry job", expiryEvery, true, func(ctx context.Context) error {
			n, err := svc.ExpireDue(ctx)
			if err == nil && n > 0 {
				log.Info("consents expired", "count", n)
			}
			return err
		}, failed),
		jobs.Every("bulk erasure job", bulkEvery, false, svc.RunBulk, failed),
		{Name: "webhook diagnostics", Run: func(ctx context.Context) {
			svc.WebhookDiag.Run(ctx, ops.WebhookDiagFlushEvery, func(err error) { log.Warn("webhook diagnostics", "err", err) })
		}},
		{Name: "audit verify", Run: func(ctx context.Context) { auditVerifyLoop(ctx, store, log) }},
		{Name: "webhook deliveries", Run: webhook.NewDispatcher(store.Outbox, cfg.Webhooks, log, time.Now).Run},
	}
	if retentionEvery > 0 {
		js = append(js, jobs.Every("retention job", retentionEvery, true, func(ctx context.Context) error {
			n, err := svc.RunRetention(ctx)
			if err == nil && n.Total() > 0 {
				log.Info("retention anonymised records", "formSubmissions", n.FormSubmissions, "digitisationSubmissions", n.DigitisationSubmissions,
					"canvassingSubmissions", n.CanvassingSubmissions, "phoneCallTasks", n.PhoneCallTasks)
			}
			return err
		}, failed))
	}
	return js
}
