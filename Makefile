# consentforms — see README.md. Every target works on a fresh machine with Go installed.
GO ?= go

.PHONY: run generate build-shared test test-race test-other test-mongo lint lint-go lint-openapi bench bench-bin bench-http bench-parts bench-store bench-crash bench-soak bench-mail check-generated

run: ## Run the server on the embedded store (./data).
	$(GO) run ./cmd/consentforms

generate: ## Regenerate the templ components.
	$(GO) tool templ generate

check-generated: ## Fail when a committed _templ.go file is stale.
	@$(TOOL_ENV) $(GO) tool templ generate >/dev/null 2>&1
	@git diff --exit-code --stat -- '*_templ.go' || (echo "generated templ files are stale: run make generate and commit" && exit 1)

# RACE_PKGS run under the race detector: the concurrent code (the SQLite single writer; in
# tenants/... the key, tenant and form caches, the outbox and the webhook diagnostics; the
# outgoing webhook dispatcher (dispatch) and the batcher (batch); the API's rate limiter and key-use writes; the admin's
# sign-in throttle) with the handlers and views over it. The rest runs without it: under -race
# the MongoDB store's tests (the FerretDB stand-in instrumented too) take about 3 times as long
# and the scenario tests of cmd/consentforms 2 to 4 times, which would take a fresh run past
# CI's 15-minute budget (README.md, Measurements).
# TEST_TMPDIR keeps the tests' fresh stores (SQLite files, the MongoDB stand-in's files) in memory
# where the machine has /dev/shm: an fsync there costs nothing, which halves the store-bound
# packages' time (sqlite 3.9 s → 1.9 s, mongo 45 s → 23 s, the scenario tests 140 s → 50 s on
# 2 cores). No test asserts durability against power loss, only against a killed process, which
# tmpfs keeps as a disk does. Override with `make test TEST_TMPDIR=/tmp`.
TEST_TMPDIR ?= $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm || echo $${TMPDIR:-/tmp})
# TEST_GOGC lets the test processes' heaps grow to 5 times what is live before the garbage
# collector runs (Go's default is 2 times): a test process holds the server, its store and, on
# MongoDB, the FerretDB stand-in, whose decoding makes much short-lived garbage. It cut the CPU
# of the scenario tests on the stand-in by a quarter (85 s → 62 s) for a few hundred MB of
# memory. The server's binary sets the same default for itself (cmd/consentforms/gc.go); the
# test binaries that run it in-process do not. The compiler, vet and staticcheck run with it
# too: from an empty build cache the build, vet and staticcheck took 503 s of CPU with Go's
# default and 466 s with it (255 → 245, 74 → 60, 174 → 161 s).
TEST_GOGC ?= 400
# TEST_GOFLAGS are the build flags of every go command of the suite (build, vet, staticcheck,
# tests), the same everywhere so that they share one build cache:
# - no debugger information (DWARF) in the compiled packages and the test binaries: a cold
#   `go build ./...` took 11 % less CPU (234 → 208 s); panics, stack traces and profiles read the
#   binary's own symbol table and stay whole, only a debugger has less to show;
# - FerretDB, the MongoDB stand-in, without its PostgreSQL backend (ferretdb_no_postgresql, its
#   own build tag): the tests run it over SQLite files, and its PostgreSQL driver was 12 s of the
#   cold build's CPU, more in vet and staticcheck;
# - one compiling goroutine per package (-c=1; the go command's default is one per core): the
#   suite compiles many packages at once on few cores, where splitting one package's back end
#   only adds its own overhead. The SQLite driver, fasthttp and Fiber from an empty cache,
#   alternated twice: 104.8 / 105.8 s of CPU → 95.2 / 98.3 s.
TEST_GOFLAGS ?= -tags=ferretdb_no_postgresql "-gcflags=all=-dwarf=false -c=1" -ldflags=-w
# TOOL_ENV is the environment of every go command of the suite, templ's generator and
# staticcheck included: built with other flags, templ's build compiled the standard library and
# golang.org/x/tools a second time from an empty cache.
TOOL_ENV = GOGC=$(TEST_GOGC) GOFLAGS='$(TEST_GOFLAGS)'
TEST_ENV = TMPDIR=$(TEST_TMPDIR) $(TOOL_ENV)
# go test runs a few of vet's analysers on each package it tests, and on every dependency for
# their facts, under each build configuration: lint-go's `go vet ./...` runs all of them on the
# same packages and their tests, so the test commands leave them out (-vet=off). From an empty
# cache they were 69 s of CPU (42 s plain, 27 s under -race), all repeated work.
TEST_VET = -vet=off

# TEST_PARALLEL is how many parallel tests of one package run at once (go test's default is
# the number of cores). The scenario tests of cmd/consentforms spend much of their time
# waiting (caches expiring, deadlines passing, the browser), so on 2 cores 4 of them overlap
# those waits; more than that only shares the cores more finely.
TEST_PARALLEL ?= 4

# RACE_GCFLAGS compile the race-instrumented build without the optimiser (-N -l): the race
# detector sees every memory access either way, and all these packages' tests together spend
# about 25 s of CPU running, against about 160 s compiling their race build from an empty cache.
# Unoptimised, that build took 129 s instead of 160 s of CPU, and their tests 25.6 s instead of
# 24.4 s. The SQLite driver (modernc.org/..., SQLite's C translated to Go) stays optimised, and
# out of the race detector's instrumentation and its pointer checks (checkptr, which -race turns
# on): our own packages stay fully instrumented, while the driver's translated C, which
# synchronises with its own mutexes, made up most of the race-instrumented run time (the
# sqlite contract suite 37 s → 17 s under load; checkptr alone was a third of its CPU).
RACE_GCFLAGS = -gcflags='all=-N -l -dwarf=false -c=1' -gcflags='modernc.org/...=-race=false -d=checkptr=0 -dwarf=false -c=1'

RACE_PKGS = $(shell $(GO) list ./tenants/... ./batch ./dispatch ./sqlite ./api ./admin ./web ./policies ./requestid)
OTHER_PKGS = $(filter-out $(RACE_PKGS),$(shell $(GO) list ./...))

# The parts of the suite run at once (each part's output kept together): each alone leaves a
# core idle much of the time (the race-instrumented SQLite, the scenario tests' waits, lint's
# single-threaded stretches), and the longest part, not their sum, is then what a run takes.
# The generated files are checked first: templ rewrites them, which the builds must not see.
test: check-generated ## The whole suite: the generated files, then at once: lint (gofmt, vet, staticcheck), RACE_PKGS with -race, every other test on SQLite, the API scenarios again on MongoDB (its stand-in, FerretDB, on loopback).
	@$(MAKE) --no-print-directory -j4 -O lint-go test-race test-other test-mongo

# build-shared compiles every package, and every package with its tests, once before the parts
# that use the same compiled packages start: two go commands at once both compile a package
# that neither finds in the build cache yet, so on an empty cache test-other, test-mongo and vet
# each compiled FerretDB, the SQLite driver and the rest. `go list -export` compiles without
# linking the commands, which no part runs. Warm, it only finds them in the cache.
build-shared:
	$(TOOL_ENV) $(GO) list -export -deps -test ./... >/dev/null

test-other test-mongo lint-go: build-shared

test-race: ## The concurrent code's packages under the race detector (RACE_PKGS).
	$(TEST_ENV) $(GO) test $(TEST_VET) -race $(RACE_GCFLAGS) -count=1 -timeout 14m $(RACE_PKGS)

test-other: ## Every other package on SQLite, the MongoDB store's own tests on its stand-in.
	$(TEST_ENV) $(GO) test $(TEST_VET) -count=1 -parallel $(TEST_PARALLEL) -timeout 14m $(OTHER_PKGS)

test-mongo: ## The API scenario and browser tests with MONGODB_URI set (FerretDB in the test process, on loopback); the six browser tests of the browser side only (browserSideOnly) run in test-other.
	$(TEST_ENV) CONSENTFORMS_TEST_STORE=mongo $(GO) test $(TEST_VET) -count=1 -parallel $(TEST_PARALLEL) -timeout 14m ./cmd/consentforms

lint: check-generated lint-go ## gofmt, go vet, staticcheck, generated files.

lint-go: ## gofmt, go vet, staticcheck (not the generated files).
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$'))" || (gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$') && exit 1)
	$(TOOL_ENV) $(GO) vet ./...
	$(TOOL_ENV) $(GO) tool staticcheck ./...

lint-openapi: ## Lint api/openapi.json with Redocly's CLI, pinned (needs Node.js 20+ and the npm registry; not part of lint).
	npx --yes @redocly/cli@2.11.1 lint api/openapi.json

bench: bench-http bench-store bench-crash bench-mail ## Every load measurement but the hour-long soak (needs wrk: apt-get install wrk).

# The bench binaries are static (CGO_ENABLED=0), so bin/ can be copied to another machine and
# run there: bin/bench http -bin bin/consentforms [-base bin/consentforms-old].
bench-bin:
	CGO_ENABLED=0 $(GO) build -o bin/consentforms ./cmd/consentforms
	CGO_ENABLED=0 $(GO) build -o bin/bench ./cmd/bench

bench-http: bench-bin ## accept-submission next to a parse-only ceiling (its own process): warm-up, rounds alternating, medians (BASE=bin/x alternates a second binary).
	bin/bench http -bin bin/consentforms $(if $(BASE),-base $(BASE))

# bench-parts splits a submission's cost: the same rounds measure the server with every feature
# on, on a tenant without a webhook endpoint, and a build of it with the benchdiscard tag, whose
# store acknowledges without writing (sqlite/discard_on.go): the request path alone. That build
# loses what it acknowledges; it is only ever built here, never by bench-bin or the release.
bench-parts: bench-bin ## accept-submission's server CPU split into the request path, the store and the outgoing webhook.
	CGO_ENABLED=0 $(GO) build -tags benchdiscard -o bin/consentforms-discard ./cmd/consentforms
	bin/bench http -bin bin/consentforms -discard bin/consentforms-discard

bench-store: bench-bin ## 120k records on the embedded store: person operations and export, writes arriving alone, re-permission pages, admin pages, audit export, retention, restart.
	bin/bench store -bin bin/consentforms

bench-crash: bench-bin ## SIGKILL under load on each store, then every acknowledged submission is read back.
	bin/bench crash -bin bin/consentforms
	bin/bench crash -bin bin/consentforms -store mongo

bench-mail: bench-bin ## double-opt-in intake with and without the service's own mail (the same build, alternated), and the mails per second one instance sends to a loopback SMTP sink.
	bin/bench http -bin bin/consentforms -texts -mail

# bench-soak takes an hour: SOAK=5m shortens each store's run (the verdict needs a few minutes).
# On MongoDB's stand-in it runs one client at 5 a second (FerretDB's SQLite backend stalls under
# several at once here); MONGODB_URI=mongodb://… soaks a real MongoDB with the full load instead.
SOAK ?= 30m
bench-soak: bench-bin ## $(SOAK) of mixed load on each store (intake, reads, receipts, unsubscribes, erasures, webhooks, mail): RSS, goroutines, open files and database size every minute; fails on growth after the warm-up.
	bin/bench soak -bin bin/consentforms -d $(SOAK)
	bin/bench soak -bin bin/consentforms -d $(SOAK) -store mongo -workers 1 -rate 5 $(if $(MONGODB_URI),-mongo-uri $(MONGODB_URI) -workers 8 -rate 40)
