package main

import (
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics is the server's Prometheus registry and the tenants.Observer that feeds it
// (docs/OPERATIONS.md#metrics). One per server: no global registry. Every label value is a
// name fixed in the code (route patterns, store operations, events) or a status code; none
// comes from a client.
type metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	batchSize  prometheus.Histogram
	batchTime  prometheus.Histogram
	storeErrs  *prometheus.CounterVec
	events     *prometheus.CounterVec
	refusals   *prometheus.CounterVec
	eventNames map[tenants.Event]bool
}

var _ tenants.Observer = (*metrics)(nil)

// refusalReasons maps the events that are refusals to their reason label.
var refusalReasons = map[tenants.Event]string{tenants.EventRateLimited: "rate_limit", tenants.EventLoginThrottled: "login_throttle"}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "consentforms_http_requests_total",
		Help: "HTTP requests answered, by method, route pattern (\"unmatched\" for none) and status."},
		[]string{"method", "route", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "consentforms_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by method and route pattern.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}, []string{"method", "route"})
	m.batchSize = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "consentforms_writer_batch_size",
		Help: "Ingestions written per batch of the batching writer.", Buckets: prometheus.ExponentialBuckets(1, 2, 9)})
	m.batchTime = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "consentforms_writer_commit_duration_seconds",
		Help:    "Time to write and commit one batch of the batching writer.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}})
	m.storeErrs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "consentforms_store_errors_total",
		Help: "Store operations that failed (database errors, not \"not found\" or conflicts), by operation."}, []string{"op"})
	m.events = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "consentforms_events_total",
		Help: "Erasures, erased records, unsubscribes, consent expiries and stored records read without their undecodable custom fields."}, []string{"event"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "consentforms_refusals_total",
		Help: "Requests answered 429: by an API key's rate limit, or by the admin sign-in throttle."}, []string{"reason"})
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "consentforms_build_info",
		Help: "Always 1; the labels name the running build."}, []string{"version", "commit", "go"})
	v := readVersion()
	build.WithLabelValues(v.Version, v.Commit, v.Go).Set(1)
	m.reg.MustRegister(m.requests, m.latency, m.batchSize, m.batchTime, m.storeErrs, m.events, m.refusals, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.eventNames = map[tenants.Event]bool{}
	for _, e := range []tenants.Event{tenants.EventErasure, tenants.EventErasedRecord, tenants.EventUnsubscribe, tenants.EventConsentExpired, tenants.EventUndecodableRecord,
		tenants.EventMailSent, tenants.EventMailRetried, tenants.EventMailFailed} {
		m.eventNames[e] = true
		m.events.WithLabelValues(string(e)) // present at 0 from the start
	}
	for _, r := range refusalReasons {
		m.refusals.WithLabelValues(r)
	}
	return m
}

// Request counts an answered HTTP request (api.Deps.ObserveRequest).
func (m *metrics) Request(method, route string, status int, took time.Duration) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(took.Seconds())
}

// Batch implements tenants.Observer.
func (m *metrics) Batch(size int, took time.Duration) {
	m.batchSize.Observe(float64(size))
	m.batchTime.Observe(took.Seconds())
}

// StoreError implements tenants.Observer.
func (m *metrics) StoreError(op string) { m.storeErrs.WithLabelValues(op).Inc() }

// Count implements tenants.Observer.
func (m *metrics) Count(e tenants.Event, n int) {
	if r, ok := refusalReasons[e]; ok {
		m.refusals.WithLabelValues(r).Add(float64(n))
		return
	}
	if m.eventNames[e] && n > 0 {
		m.events.WithLabelValues(string(e)).Add(float64(n))
	}
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// mountMetrics serves GET /metrics on the main listener to loopback clients only, and only
// to requests no proxy forwarded (a reverse proxy on the same host connects from loopback
// too): anyone else gets the API's 404, as for any unknown path.
func mountMetrics(app *fiber.App, m *metrics) {
	h := adaptor.HTTPHandler(m.handler())
	app.Get("/metrics", func(c *fiber.Ctx) error {
		forwarded := c.Get(fiber.HeaderXForwardedFor) != "" || c.Get("Forwarded") != "" || c.Get("X-Real-IP") != ""
		if ip := c.Context().RemoteIP(); ip == nil || !ip.IsLoopback() || forwarded {
			return fiber.ErrNotFound
		}
		return h(c)
	})
}

// startMetrics serves GET /metrics on its own listener (CONSENTFORMS_METRICS_ADDR), open to
// whoever reaches that address: the operator chooses where it listens.
func startMetrics(addr string, m *metrics, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.Info("metrics listening", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}
