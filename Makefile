# consentforms — see README.md. Every target works on a fresh machine with Go installed.
GO ?= go

.PHONY: run generate test lint bench bench-http bench-store check-generated

run: ## Run the server on the embedded store (./data).
	$(GO) run ./cmd/consentforms

generate: ## Regenerate the templ components.
	$(GO) tool templ generate

check-generated: ## Fail when a committed _templ.go file is stale.
	@$(GO) tool templ generate >/dev/null 2>&1
	@git diff --exit-code --stat -- '*_templ.go' || (echo "generated templ files are stale: run make generate and commit" && exit 1)

test: check-generated ## The whole suite: vet, then every test (API tests run the real server; browser tests need /usr/bin/chromium).
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 14m ./...

lint: check-generated ## gofmt, go vet, staticcheck.
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$'))" || (gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$') && exit 1)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@2025.1.1 ./...

bench: bench-http bench-store ## Both load measurements (needs wrk: apt-get install wrk).

bench-http: ## accept-submission req/s and p50/p99 at 64 connections next to a parse-only ceiling.
	$(GO) build -o bin/consentforms ./cmd/consentforms
	$(GO) run ./cmd/bench http -bin bin/consentforms

bench-store: ## Erasure and unsubscribe latency with 100k records per type on the embedded store.
	$(GO) build -o bin/consentforms ./cmd/consentforms
	$(GO) run ./cmd/bench store -bin bin/consentforms
