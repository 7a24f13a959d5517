package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/consentforms/consentforms/dispatch"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/cache"
	"github.com/consentforms/consentforms/tenants/jobs"
	"github.com/consentforms/consentforms/tenants/ops"
)

// How often the expiry job records passed deadlines, and the bulk erasure job looks for
// approved and expired requests.
const (
	expiryEvery = 30 * time.Second
	bulkEvery   = time.Second
)

// The once-per-cluster jobs, each under its lease (tenants.Lease).
const (
	jobExpiry    = "expiry"
	jobRetention = "retention"
	jobBulk      = "bulk-erasure"
	jobDispatch  = "webhook-dispatch"
	jobVerify    = "audit-verify"
)

// leaseTTL is how long a job's lease holds without renewal: an instance that stops hands its
// jobs to another within it.
const leaseTTL = 30 * time.Second

// takeLeases takes (or finds taken) the lease of each job for this instance, once, before the
// jobs start; each lease's renewal then runs as a job of the group. Without a lease
// repository (the embedded store: one instance) every lease is held.
func takeLeases(ctx context.Context, repo tenants.LeaseRepo, log *slog.Logger) map[string]*tenants.Lease {
	owner := tenants.NewID("inst_")
	leases := map[string]*tenants.Lease{}
	for _, job := range []string{jobExpiry, jobRetention, jobBulk, jobDispatch, jobVerify} {
		l := tenants.NewLease(repo, job, owner, leaseTTL, func(err error) { log.Warn("job lease", "job", job, "err", err) })
		l.Renew(ctx)
		leases[job] = l
	}
	return leases
}

// serverJobs is the background work of a server, started and stopped as one group
// (package jobs): each once-per-cluster job runs a pass only while this instance holds its
// lease; a job's failure is logged, counted, and the job goes on.
func serverJobs(ctx context.Context, cfg Config, store tenants.Stores, cases ops.Cases, mailer dispatch.Mailer, retentionEvery time.Duration, log *slog.Logger) []jobs.Job {
	leases := takeLeases(ctx, store.Leases, log)
	passes := &jobs.Passes{Ops: cases, Catalogue: catalogue{store}}
	failed := func(name string, err error) {
		cases.Core.ObserveError(err)
		log.Warn(name, "err", err)
	}
	// held runs do only while this instance holds the job's lease: another instance runs it.
	held := func(job string, do func(ctx context.Context) error) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			if !leases[job].Held() {
				return nil
			}
			return do(ctx)
		}
	}
	hooks := cfg.Webhooks
	hooks.Mailer = mailer
	dispatcher := dispatch.NewDispatcher(cache.NewOutbox(store.Outbox), hooks, log, time.Now)
	dispatcher.Held = leases[jobDispatch].Held
	js := []jobs.Job{
		jobs.Every("expiry job", expiryEvery, true, held(jobExpiry, func(ctx context.Context) error {
			n, err := passes.ExpireDue(ctx)
			if err == nil && n > 0 {
				log.Info("consents expired", "count", n)
			}
			return err
		}), failed),
		jobs.Every("bulk erasure job", bulkEvery, false, held(jobBulk, passes.RunBulk), failed),
		jobs.Flushing("webhook diagnostics", jobs.DiagnosticsFlushEvery, cases.WebhookDiag.Flush, func(name string, err error) { log.Warn(name, "err", err) }),
		jobs.ChainVerification(store.AuditChains, leases[jobVerify].Held, log),
		{Name: "webhook deliveries", Run: dispatcher.Run},
	}
	if retentionEvery > 0 {
		js = append(js, jobs.Every("retention job", retentionEvery, true, held(jobRetention, func(ctx context.Context) error {
			n, err := passes.RunRetention(ctx)
			if err == nil && n.Total() > 0 {
				log.Info("retention anonymised records", "formSubmissions", n.FormSubmissions, "digitisationSubmissions", n.DigitisationSubmissions,
					"canvassingSubmissions", n.CanvassingSubmissions, "phoneCallTasks", n.PhoneCallTasks)
			}
			return err
		}), failed))
	}
	for job, l := range leases {
		js = append(js, jobs.Job{Name: job + " lease", Run: l.Run})
	}
	return js
}
