# Valuator: the two commands are `make run` and `make test` (see README.md).
# Only Go and Node are needed; npm packages are installed on first use.

GO       ?= go
BIN      := bin/valuator
NPM_INSTALL := npm install --no-save --no-audit --no-fund --loglevel=error

# Everything the web build reads, so the app is rebuilt only when one of them changes.
WEB_SOURCES := $(shell find web/src web/public -type f 2>/dev/null) web/index.html web/vite.config.ts \
	web/tsconfig.json web/tsconfig.app.json api/openapi.yaml
GO_SOURCES  := $(shell find . -name '*.go' -not -path './web/node_modules/*' -not -path './e2e/node_modules/*' -not -path './sdk/*' \
	-not -path './api/lint/node_modules/*') \
	$(shell find internal/store/migrations -name '*.sql') api/openapi.yaml go.mod go.sum

.PHONY: run build litestream web test test-stages test-days readme-check test-go test-web test-e2e test-sdk lint-api sdk sdk-check sdk-dist screenshots bench bench-scale bench-backup fuzz vet examples clean help

help:
	@echo "make run     build everything and start the server at http://localhost:8080 (SQLite, demo data)"
	@echo "make test    every test: the contract lints, Go (SQLite and PostgreSQL), web unit tests, browser end-to-end tests"
	@echo "make readme-check  run the README's commands on a fresh clone (README_CHECK_FROM=worktree: the working tree)"
	@echo "make lint-api  lint api/openapi.yaml with Redocly (recommended rules) and Spectral (OWASP API ruleset); docs/api.md"
	@echo "make build   build bin/valuator with the web app embedded"
	@echo "make litestream  install Litestream (continuous SQLite replication, docs/operations.md) into bin/"
	@echo "make bench   benchmarks"
	@echo "make bench-scale  import, training, memory, restart, lookup and market latency on demo markets of SCALE_HOMES homes"
	@echo "             (default 10000,100000,1000000; about 12 minutes; docs/operations.md, Large markets)"
	@echo "make bench-backup  backup, verify and restore time and size, SQLite and PostgreSQL, at the demo market and"
	@echo "             BENCH_HOMES homes (default 100000; about 11 minutes; docs/operations.md, Backups)"
	@echo "make screenshots  screenshots of every screen on a phone and a laptop, into docs/screenshots"
	@echo "make sdk     regenerate the TypeScript and Go SDKs' generated code from api/openapi.yaml (sdk/)"
	@echo "make sdk-dist  package the SDKs into dist/ (Go module zip, npm tarball, Python wheel and sdist), which"
	@echo "             make build embeds in the binary so that the server hosts them (GET /api/sdks)"
	@echo "make examples  regenerate the example valuation the product shows (after a change to the engine or the answer)"
	@echo "make fuzz    run each fuzz target for FUZZTIME (default 30s; add -parallel=1 to FUZZFLAGS to spare cores)"

# Each step says what it does before it does it: a first build downloads packages for a few minutes, and a silent
# one looks hung.
run: build
	@echo "==> starting bin/valuator serve (it says when it is running; Ctrl-C stops it)"
	./$(BIN) serve

build: $(BIN)

# npm dependencies, installed from the lock file; the stamp file records when.
web/node_modules/.installed: web/package.json web/package-lock.json
	@echo "==> installing the web app's npm packages (web/node_modules; once)"
	cd web && $(NPM_INSTALL)
	@touch $@

e2e/node_modules/.installed: e2e/package.json e2e/package-lock.json
	cd e2e && $(NPM_INSTALL)
	@touch $@

sdk/typescript/node_modules/.installed: sdk/typescript/package.json sdk/typescript/package-lock.json
	cd sdk/typescript && $(NPM_INSTALL)
	@touch $@

# The contract's linters have a folder of their own (api/lint), so that their packages are pinned apart from the
# web app's, the end-to-end tests' and the SDK's. SCARF_ANALYTICS=false: a dependency of Spectral would otherwise
# report the install.
api/lint/node_modules/.installed: api/lint/package.json api/lint/package-lock.json
	cd api/lint && SCARF_ANALYTICS=false $(NPM_INSTALL)
	@touch $@

web/dist/app/index.html: web/node_modules/.installed $(WEB_SOURCES)
	@echo "==> building the web app (TypeScript check and Vite build into web/dist)"
	cd web && npm run build --silent

web: web/dist/app/index.html

# The client packages the server hosts (issue 37; docs/architecture.md, "The clients the server hosts"): sdk-dist
# packs the TypeScript SDK (npm pack, which compiles it), runs sdk/python/build_wheel.py --out DIR (its wheel, written
# with the standard library alone; without a Python 3.11 the build goes on and the server leaves Python out),
# and has cmd/sdkdist write dist/: the Go module as a GOPROXY tree, the npm tarball and the Python files, each checked
# to carry the API's version. go:embed cannot reach dist/ (nor sdk/, another module), so the build copies dist/ into
# internal/sdks/dist, embedded; only its .gitkeep is committed, so a plain `go build` still compiles (and answers
# GET /api/sdks with 503).
SDK_SOURCES := $(shell find sdk/go sdk/typescript/src sdk/python -type f -not -path '*/node_modules/*' \
	-not -path '*/dist/*' -not -path '*/__pycache__/*' -not -path '*/.venv/*' -not -path '*/build/*' 2>/dev/null) \
	$(wildcard sdk/typescript/*.json sdk/typescript/*.md sdk/typescript/LICENSE cmd/sdkdist/*.go internal/sdks/*.go) \
	api/openapi.yaml

PYTHON ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)

dist/.built: sdk/typescript/node_modules/.installed $(SDK_SOURCES)
	@echo "==> packaging the SDKs into dist/ (the Go module zip, the npm tarball, the Python wheel and sdist)"
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	(cd sdk/typescript && npm pack --silent --pack-destination "$$tmp" >/dev/null); \
	py=""; \
	mkdir "$$tmp/python"; \
	if $(PYTHON) sdk/python/build_wheel.py --out "$$tmp/python" >/dev/null; then py="$$tmp/python"; else \
		echo "    the Python client's wheel was not built (it needs Python 3.11 or later): the server leaves it out"; \
	fi; \
	$(GO) run ./cmd/sdkdist -out dist -npm "$$tmp"/*.tgz $${py:+-python "$$py"}
	@touch $@

sdk-dist: dist/.built

internal/sdks/dist/.built: dist/.built
	@find internal/sdks/dist -mindepth 1 -maxdepth 1 ! -name .gitkeep -exec rm -rf {} +
	cp -R dist/. internal/sdks/dist/
	@touch $@

$(BIN): web/dist/app/index.html internal/sdks/dist/.built $(GO_SOURCES)
	@echo "==> building $(BIN) with the web app and the SDKs embedded (go build; the first build downloads the Go modules and"
	@echo "    compiles them, a few minutes on 2 cores; later builds take seconds)"
	$(GO) build -trimpath -o $(BIN) ./cmd/valuator
	@echo "==> built $(BIN)"

# The stages of `make test`, in order; .ci/run runs them one by one and prints each one's time.
TEST_STAGES := lint-api test-go test-web test-e2e test-sdk readme-check
test: $(TEST_STAGES)

test-stages:
	@echo $(TEST_STAGES)

# Tests run on a day they choose, never the calendar's (issue 33): VALUATOR_TEST_TODAY, default 2026-11-28
# (internal/testclock.Default), is the day the demo market ends on, servers started by tests start their clock on
# (VALUATOR_CLOCK) and billing periods and expiry count from. test-days runs the Go, end-to-end and SDK tests on each
# of TEST_DAYS (a month's end, a year's end and a leap day by default) to prove that the day does not matter. Not
# part of `make test`: it takes three times as long.
TEST_DAYS ?= 2026-12-31 2027-01-01 2028-02-29
test-days: $(BIN) e2e/node_modules/.installed sdk/typescript/node_modules/.installed
	@set -e; for d in $(TEST_DAYS); do \
		echo "==> the tests on $$d"; \
		VALUATOR_TEST_TODAY=$$d $(MAKE) --no-print-directory test-go test-e2e test-sdk; \
	done; echo "==> passed on every day of TEST_DAYS: $(TEST_DAYS)"

# The README's commands on a fresh clone of HEAD (README_CHECK_FROM=worktree: a copy of the working tree, uncommitted
# changes included): `make run` on a free port, the API's curl examples with a new key of the demo account, the
# bin/valuator examples; each must exit 0 or answer 2xx (scripts/readme-check.sh says what it skips and why).
readme-check:
	bash scripts/readme-check.sh

# The contract lints (docs/api.md, "Lints"): Redocly CLI with its recommended rules as errors (redocly.yaml;
# the few places a rule does not fit are listed with the reason in .redocly.lint-ignore.yaml), then Spectral with
# its OpenAPI rules and the OWASP API Security ruleset (.spectral.yaml), failing on any error: none is allowed on a
# request input. Spectral's warnings (what the server writes, left unbounded on purpose) are not printed here; run
# `cd api/lint && npx spectral lint ../openapi.yaml` to see them. No usage report leaves the machine.
REDOCLY := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true node_modules/.bin/redocly
lint-api: api/lint/node_modules/.installed
	cd api/lint && $(REDOCLY) lint ../openapi.yaml --format=summary
	cd api/lint && node_modules/.bin/spectral lint ../openapi.yaml --ruleset .spectral.yaml --fail-severity=error \
		--display-only-failures

vet:
	$(GO) vet ./...

# Litestream, which replicates the SQLite database continuously (docs/operations.md, "Continuous protection"),
# pinned (the version internal/backup.LitestreamVersion names), into bin/. The Go tests run it (TestLitestream...):
# test-go builds it first. It needs cgo (a C compiler): v0.3 uses mattn/go-sqlite3. About a minute on 2 cores from
# an empty module cache, seconds after.
LITESTREAM_VERSION := v0.3.13
litestream: bin/.litestream-$(LITESTREAM_VERSION)

bin/.litestream-$(LITESTREAM_VERSION):
	@echo "==> installing Litestream $(LITESTREAM_VERSION) into bin/litestream (go install)"
	@mkdir -p bin
	GOBIN=$(CURDIR)/bin CGO_ENABLED=1 $(GO) install github.com/benbjohnson/litestream/cmd/litestream@$(LITESTREAM_VERSION)
	@rm -f bin/.litestream-*
	@touch $@

# Go tests run on SQLite and, when initdb/pg_ctl are installed (or VALUATOR_TEST_POSTGRES_URL is set), on a
# throwaway PostgreSQL cluster too. CI sets VALUATOR_TEST_REQUIRE_POSTGRES=1 so PostgreSQL can never be skipped.
# The slowest packages are named first, so that they start first: `go test` runs two at a time on two cores, and a
# long package that starts last runs alone at the end (internal/server, 5 minutes of tests, did).
GO_TEST_FIRST := ./internal/server ./cmd/valuator ./internal/valuation ./internal/avm
test-go: vet litestream
	$(GO) test -count=1 -timeout=30m $(GO_TEST_FIRST) ./...

test-web: web/node_modules/.installed
	cd web && npm run typecheck --silent && npm test --silent

# End-to-end tests drive Debian's Chromium against the real binary on a free port with a fresh database.
test-e2e: $(BIN) e2e/node_modules/.installed
	cd e2e && npx playwright test

# The SDKs (sdk/typescript, sdk/go, sdk/python): first the generated code is checked against api/openapi.yaml
# (sdk-check), then each SDK's tests run against the real binary on a free port with a fresh database
# (sdk/*/README.md; the Python client's on Debian's Python and pytest, python3-pytest, never a pyenv one), and
# internal/sdks/installtest installs each SDK from that binary as a customer would (the install lines of
# GET /api/sdks: go get through its GOPROXY, npm install of its tarball, pip install from its index) and values a
# demo home.
test-sdk: sdk-check $(BIN) sdk/typescript/node_modules/.installed
	cd sdk/go && $(GO) vet ./... && VALUATOR_BIN=$(CURDIR)/$(BIN) VALUATOR_TEST_REQUIRE_SDK=1 $(GO) test -count=1 ./...
	cd sdk/typescript && VALUATOR_BIN=$(CURDIR)/$(BIN) npm test --silent
	cd sdk/python && VALUATOR_BIN=$(CURDIR)/$(BIN) VALUATOR_TEST_REQUIRE_SDK=1 /usr/bin/python3 -m pytest -q
	VALUATOR_BIN=$(CURDIR)/$(BIN) VALUATOR_TEST_REQUIRE_SDK=1 $(GO) test -count=1 -timeout=15m ./internal/sdks/installtest

# The SDKs' generated code, by pinned generators: openapi-typescript (the version in sdk/typescript's lock file)
# writes sdk/typescript/src/schema.ts, oapi-codegen (OAPI_CODEGEN_VERSION, with sdk/go/oapi-codegen.yaml) writes
# sdk/go/api/api.gen.go. sdk-generate writes both into the folder $$out; `make sdk` copies them into place and
# sdk-check (run by `make test`) fails while the committed files differ.
OAPI_CODEGEN_VERSION := v2.8.2
define sdk-generate
cd sdk/go && $(GO) run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$(OAPI_CODEGEN_VERSION) \
	-config oapi-codegen.yaml ../../api/openapi.yaml > "$$out/api.gen.go"; \
cd $(CURDIR)/sdk/typescript && node_modules/.bin/openapi-typescript ../../api/openapi.yaml -o "$$out/schema.ts" >/dev/null
endef

sdk: sdk/typescript/node_modules/.installed
	@set -e; out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	$(sdk-generate); \
	cd $(CURDIR); cp "$$out/api.gen.go" sdk/go/api/api.gen.go; cp "$$out/schema.ts" sdk/typescript/src/schema.ts; \
	echo "regenerated sdk/go/api/api.gen.go and sdk/typescript/src/schema.ts"

sdk-check: sdk/typescript/node_modules/.installed
	@set -e; out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	$(sdk-generate); \
	cd $(CURDIR); stale=0; \
	diff -u sdk/go/api/api.gen.go "$$out/api.gen.go" > "$$out/go.diff" || stale=1; \
	diff -u sdk/typescript/src/schema.ts "$$out/schema.ts" > "$$out/ts.diff" || stale=1; \
	if [ $$stale = 1 ]; then head -n 60 "$$out/go.diff" "$$out/ts.diff"; \
		echo "The SDKs' generated code is stale (api/openapi.yaml or a generator changed): run make sdk"; exit 1; fi

# Full-page screenshots of every screen at 390x844 (phone) and 1440x900 (laptop), signed out and in as the seeded
# demo account, with Markets in use and the operators' console and Support panel as the seeded operator sees them,
# written to docs/screenshots (linked from the README). The same walk runs in `make test` and fails
# on sideways scrolling, console errors and clipped code blocks or tables; this only adds the pictures.
screenshots: $(BIN) e2e/node_modules/.installed
	rm -rf docs/screenshots/phone docs/screenshots/laptop
	cd e2e && SCREENSHOTS=../docs/screenshots npx playwright test --project=main tests/screens.spec.ts \
		tests/markets.spec.ts tests/admin.spec.ts
	node e2e/screenshots-index.mjs docs/screenshots

# The example valuation the landing page, the API Keys docs, the help center and api/openapi.yaml show: the real
# engine's answer for a demo home (internal/examples). go test ./internal/examples fails while it is out of date.
examples:
	$(GO) run ./cmd/valuator examples

# Every benchmark, including the load benchmark of the public API (internal/loadbench, a few minutes: it trains
# the engine on King County and runs each database for 40 seconds).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

# Valuator on demo markets of growing size (internal/scalebench): for each size in SCALE_HOMES, `valuator demo`
# generates and imports the market into a fresh SQLite database under SCALE_DIR, a `valuator serve` of the built
# binary trains the engine, and a second start restores the saved engine and answers timed lookups and market
# statistics calls over HTTP on SCALE_ADDR, SCALE_RATE a second (default 200, read by cmd/scalebench). Prints one
# table (import, training, peak and serving RSS, restart, lookup and market p50/p99). Not part of `make test`: the
# million-home market alone takes about 8 minutes on 2 cores (run it under nice on a shared machine). The binary
# is built without the web app, which the measurement does not need.
SCALE_HOMES ?= 10000,100000,1000000
SCALE_DIR   ?= /tmp/scale-bench
SCALE_ADDR  ?= 127.0.0.1:8093
bench-scale:
	$(GO) build -trimpath -o bin/valuator-scale ./cmd/valuator
	$(GO) run ./cmd/scalebench -bin bin/valuator-scale -homes $(SCALE_HOMES) -dir $(SCALE_DIR) -addr $(SCALE_ADDR)

# Backup, verify and restore figures (scripts/backup-bench.sh): on SQLite and on PostgreSQL (BENCH_PG_URL, else a
# throwaway cluster), a development server of the built binary seeds the demo market, or BENCH_HOMES homes, and
# runs while it is backed up and the backup verified; then the backup is restored into an empty database. Prints one
# table. Not part of `make test`: training the 100,000-home market takes 3 to 5 minutes a database on 2 shared
# cores.
BENCH_HOMES ?= 100000
bench-backup:
	BENCH_HOMES=$(BENCH_HOMES) GO=$(GO) ./scripts/backup-bench.sh

# Each fuzz target in turn for FUZZTIME (go test -fuzz takes one target at a time). A crash is written to the
# package's testdata/fuzz/<target>/ and then runs with every `go test` as a regression test. The fuzzer shrinks each
# new input for up to a minute by default, which on workbooks of tens of KB took most of a 3-minute run (4,000
# executions of FuzzReadXLS instead of 1.8 million); 10 tries each is enough. Add -parallel=1 to FUZZFLAGS to
# leave the other cores free.
FUZZTIME  ?= 30s
FUZZFLAGS ?= -fuzzminimizetime=10x
FUZZ_TARGETS := internal/batch:FuzzReadCSV internal/batch:FuzzReadXLS internal/batch:FuzzReadXLSX \
	internal/batch:FuzzDetect internal/address:FuzzParse internal/address:FuzzFromParts

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) ./$$pkg; \
	done

clean:
	rm -rf bin web/dist/app web/node_modules/.installed e2e/node_modules/.installed e2e/test-results \
		sdk/typescript/node_modules/.installed sdk/typescript/dist sdk/python/dist api/lint/node_modules/.installed dist
	find internal/sdks/dist -mindepth 1 -maxdepth 1 ! -name .gitkeep -exec rm -rf {} +

# Lighthouse's mobile performance score of `/`, `/pricing` and `/login` (issue 33; docs/performance.md), with
# Lighthouse 12 and 13 (pinned in perf/lighthouse, installed there on first use), three runs each, on the built
# binary started on a free port with a fresh database in development mode (or LIGHTHOUSE_URL, a running server).
# Prints the median score, LCP and TBT per page and version, and fails when a median is below 95 (MIN_SCORE). Not
# part of `make test`: it takes about five minutes, and on a loaded machine the scores say more about the load than
# about the pages (it prints the load average).
.PHONY: lighthouse
perf/lighthouse/node_modules/.installed: perf/lighthouse/package.json perf/lighthouse/package-lock.json
	cd perf/lighthouse && $(NPM_INSTALL)
	@touch $@

lighthouse: $(BIN) perf/lighthouse/node_modules/.installed
	node scripts/lighthouse.mjs
