# tfgate — the two commands a newcomer needs are `make demo` and `make test`.
GO                ?= go
TERRAFORM_VERSION := 1.5.7
BIN               := $(CURDIR)/.bin
TERRAFORM         := $(BIN)/terraform
TERRAFORM_STAMP   := $(BIN)/.terraform-$(TERRAFORM_VERSION)
# OpenTofu, the other flavour the end-to-end scenarios run against (TFGATE_TEST_TERRAFORM).
TOFU_VERSION      := 1.10.6
TOFU              := $(BIN)/tofu
TOFU_STAMP        := $(BIN)/.tofu-$(TOFU_VERSION)
TFGATE            := $(BIN)/tfgate
# GitHub's official REST API description, which githubtest holds every request to.
OCTOKIT_OPENAPI_VERSION := 23.0.2
OCTOKIT_OPENAPI   := $(BIN)/octokit-openapi
OCTOKIT_STAMP     := $(OCTOKIT_OPENAPI)/.installed-$(OCTOKIT_OPENAPI_VERSION)
# Mermaid, which every Mermaid golden (*.mmd under testdata/) must parse and render in
# (internal/mermaidcheck): the npm package at the version GitHub last reported (an `info`
# diagram; GitHub does not publish it), run in Debian's chromium, headless.
MERMAID_VERSION   := 11.3.0
MERMAID           := $(BIN)/mermaid
MERMAID_STAMP     := $(MERMAID)/.installed-$(MERMAID_VERSION)
CHROMIUM          ?= /usr/bin/chromium
ACTIONLINT_VERSION := 1.7.12
ACTIONLINT        := $(BIN)/actionlint
ACTIONLINT_STAMP  := $(BIN)/.actionlint-$(ACTIONLINT_VERSION)
# staticcheck, the Go linter make test runs (make lint), from the Go module proxy.
STATICCHECK_VERSION := 0.8.2
STATICCHECK       := $(BIN)/staticcheck
STATICCHECK_STAMP := $(BIN)/.staticcheck-$(STATICCHECK_VERSION)
ACT_VERSION       := 0.2.89
ACT               := $(BIN)/act
ACT_STAMP         := $(BIN)/.act-$(ACT_VERSION)
# conftest, what `tfgate policy eval` is measured against (make bench only).
CONFTEST_VERSION  := 0.71.1
CONFTEST          := $(BIN)/conftest
CONFTEST_STAMP    := $(BIN)/.conftest-$(CONFTEST_VERSION)
# goreleaser, which builds the releases (.goreleaser.yaml; make release-snapshot).
GORELEASER_VERSION := 2.15.1
GORELEASER        := $(BIN)/goreleaser
GORELEASER_STAMP  := $(BIN)/.goreleaser-$(GORELEASER_VERSION)
SYFT_VERSION      := 1.57.1
SYFT_STAMP        := $(BIN)/.syft-$(SYFT_VERSION)
# goreleaser reads the commit and its date only in a clone with a remote (else it stamps
# "none"): a clone without one (a worktree, a copy) names tfgate's, for goreleaser only.
GORELEASER_ENV    := $(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/tfgate/tfgate.git)
# Every workflow file; action.yml is checked through the workflow that runs it (`uses: ./`).
WORKFLOWS         := $(wildcard .github/workflows/*.yml examples/workflows/*.yml)
VERSION           ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# -s -w and no cgo: a static binary without symbol tables starts about 1.5 ms (an eighth)
# faster, which is most of tfgate's fixed cost on a small project (make bench, (a)).
LDFLAGS           := -s -w -X github.com/tfgate/tfgate/internal/cli.Version=$(VERSION)
# fakecloud, the test provider, installed as a filesystem mirror (the unpacked layout
# HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/) that tests name in their own CLI config.
FAKECLOUD_VERSION := 0.1.0
PLUGINS           := $(BIN)/plugins
# terraform and tofu read the configurations' "tfgate/fakecloud" under different registry
# hosts (testprovider.Addresses), so the mirror holds the one binary under each; the walk of
# a mirror does not follow symlinks below its top, so the second is a hard link.
FAKECLOUD_PKG     := tfgate/fakecloud/$(FAKECLOUD_VERSION)/$(shell $(GO) env GOOS)_$(shell $(GO) env GOARCH)/terraform-provider-fakecloud_v$(FAKECLOUD_VERSION)
FAKECLOUD         := $(PLUGINS)/registry.terraform.io/$(FAKECLOUD_PKG)
FAKECLOUD_TOFU    := $(PLUGINS)/registry.opentofu.org/$(FAKECLOUD_PKG)

# Tests and the demo run the pinned terraform with an empty CLI config: quiet, reproducible,
# and never reaching a registry.
export TF_CLI_CONFIG_FILE := /dev/null
export TFGATE_TEST_TERRAFORM := $(TERRAFORM)
export TFGATE_TEST_TOFU := $(TOFU)
export TFGATE_TEST_PLUGINS := $(PLUGINS)
export TFGATE_GITHUB_OPENAPI := $(OCTOKIT_OPENAPI)/node_modules/@octokit/openapi/generated/api.github.com.json
export TFGATE_TEST_MERMAID := $(MERMAID)/node_modules/mermaid/dist/mermaid.min.js
export TFGATE_TEST_CHROMIUM := $(CHROMIUM)
# The act end-to-end test (internal/e2e) runs the example workflows in this act, with offline
# copies of three official actions: ../shared/testdata/actions when it is there, else
# .bin/actions (make actions clones the pinned versions once).
export TFGATE_TEST_ACT := $(ACT)
ACTIONS_SHARED    := $(abspath $(CURDIR)/../shared/testdata/actions)
ACTIONS           := $(if $(wildcard $(ACTIONS_SHARED)/checkout/action.yml),$(ACTIONS_SHARED),$(BIN)/actions)
PINNED_ACTIONS    := checkout@v4.4.0 upload-artifact@v4.6.2 download-artifact@v4.3.0
export TFGATE_TEST_ACTIONS := $(ACTIONS)
# The packages of the end-to-end phases of make test, and all the others: the unit tests.
E2E_PKGS          := ./cmd/tfgate ./internal/e2e
UNIT_PKGS          = $(shell $(GO) list ./... | grep -v -e '/cmd/tfgate$$' -e '/internal/e2e$$')
# $(call phase,WHAT): the line make test prints as a phase starts, with the time since make did.
MAKE_START        := $(shell date +%s)
phase              = @echo "== $(1) [$$(( $$(date +%s) - $(MAKE_START) ))s]"
space             := $(subst ,, )
# What make test-quick leaves out, measured with go test -json on the 2-core machine under
# the load of five engineers: the tests that took over 5 s, unit tests (the plugin cache's,
# the test provider's and others with real terraform or PostgreSQL) and testscripts (GitHub
# retries and timeouts, PostgreSQL, slow applies, signals: 50 of 104, 54 run).
QUICK_SKIP_TESTS  := TestPluginCacheColdWarm TestPluginCacheConcurrent TestPluginCacheWithoutLockFiles \
	TestApplyWritesTheObject TestOneNormalPlanReportsAllDrift TestRefreshOnlyShowsOutOfBandChanges \
	TestSecretIsSensitive TestPostgresStopStartKeepsPortAndData TestPublishIssuesWithAnAppToken \
	TestCancelReleasesStateLock TestCombinedQueriesAgreeWithSingleOnes
QUICK_SKIP        := apply_again apply_artifact apply_catchup apply_catchup_bound apply_publish_deadline \
	apply_rerun drift_foldback_pr drift_issue drift_lost_write drift_projects drift_webhook forged_backend gate_stale \
	gate_unread_pull getting_started github_fork github_lost_write github_pr github_split \
	github_stopped github_timeout hostile_input integrity_backend integrity_base_view \
	integrity_submodule_module integrity_workflow_commands interrupt leaks merge_queue_group \
	merge_queue_wait metrics metrics_apply pg_apply pg_apply_crash pg_apply_crash_push \
	pg_apply_interrupt pg_apply_kill pg_apply_tfkill pg_down pg_interrupt pg_lock pg_plan \
	pg_queue_wait pg_workspace plan_bundle plugin_cache policy_base policy_deny publish_matrix \
	secrets stale_two_prs apply_reuse plan_reuse
# alternation joins words with |: $(call alternation,a b) is a|b.
alternation        = $(subst $(space),|,$(strip $(1)))
# Under make a missing tool fails its test (make test skips nothing); a plain `go test`
# skips it, naming the make target (internal/testenv).
export TFGATE_TEST_REQUIRE_ALL := 1

.PHONY: all build test-quick terraform tofu fakecloud openapi mermaid chromium actionlint staticcheck act actions conftest goreleaser syft release-check release-snapshot lint-workflows lint test vet bench bench-compare kill-campaign demo clean

all: build

build:
	@mkdir -p $(BIN)
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(TFGATE) ./cmd/tfgate

# terraform 1.5.7 built from the Go module proxy (about 3 minutes once; cached in .bin/).
terraform: $(TERRAFORM_STAMP)
$(TERRAFORM_STAMP):
	@mkdir -p $(BIN)
	@echo "building terraform $(TERRAFORM_VERSION) into .bin/ (once; a few minutes)…"
	GOBIN=$(BIN) $(GO) install github.com/hashicorp/terraform@v$(TERRAFORM_VERSION)
	@$(TERRAFORM) version | head -1 | grep -q 'v$(TERRAFORM_VERSION)'
	@touch $@

# OpenTofu built from the Go module proxy (a few minutes once; cached in .bin/). `go install`
# refuses it (its go.mod has replace directives), so build it in a writable copy of the
# module. dev=no makes it report 1.10.6, not 1.10.6-dev (which no version constraint matches).
# .bin/tofu-$(TOFU_VERSION) is the versioned binary, .bin/tofu a hard link to it; an old
# .bin/tofu is removed first, so that a symlink there is replaced, never written through.
tofu: $(TOFU_STAMP)
$(TOFU_STAMP):
	@mkdir -p $(BIN)
	@echo "building OpenTofu $(TOFU_VERSION) into .bin/ (once; a few minutes)…"
	@set -e; dir=$$($(GO) mod download -json github.com/opentofu/opentofu@v$(TOFU_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	  test -d "$$dir"; tmp=$$(mktemp -d); trap 'chmod -R u+w "$$tmp"; rm -rf "$$tmp"' EXIT; \
	  cp -R "$$dir/." "$$tmp/src"; chmod -R u+w "$$tmp/src"; \
	  cd "$$tmp/src" && $(GO) build -trimpath -buildvcs=false \
	    -ldflags '-s -w -X github.com/opentofu/opentofu/version.dev=no' -o "$$tmp/tofu" ./cmd/tofu; \
	  rm -f $(BIN)/tofu-$(TOFU_VERSION) $(TOFU); mv "$$tmp/tofu" $(BIN)/tofu-$(TOFU_VERSION); \
	  ln $(BIN)/tofu-$(TOFU_VERSION) $(TOFU)
	@$(TOFU) version | head -1 | grep -qx 'OpenTofu v$(TOFU_VERSION)'
	@touch $@

# Rebuilt every time (go build is cached): a stale provider would test old code. Built
# reproducibly, so its hash (in .terraform.lock.hcl) changes only when its code does.
fakecloud:
	@mkdir -p $(dir $(FAKECLOUD))
	$(GO) build -trimpath -buildvcs=false -ldflags '-X main.version=$(FAKECLOUD_VERSION)' -o $(FAKECLOUD) ./internal/testprovider/cmd/terraform-provider-fakecloud
	@mkdir -p $(dir $(FAKECLOUD_TOFU))
	@ln -f $(FAKECLOUD) $(FAKECLOUD_TOFU)
# @octokit/openapi from the npm registry (once; cached in .bin/).
openapi: $(OCTOKIT_STAMP)
$(OCTOKIT_STAMP):
	@mkdir -p $(OCTOKIT_OPENAPI)
	npm install --silent --no-audit --no-fund --prefix $(OCTOKIT_OPENAPI) @octokit/openapi@$(OCTOKIT_OPENAPI_VERSION)
	@test -s $(TFGATE_GITHUB_OPENAPI)
	@touch $@

# mermaid from the npm registry (once; cached in .bin/); its install scripts are not run:
# the test loads only its self-contained bundle, dist/mermaid.min.js.
mermaid: $(MERMAID_STAMP)
$(MERMAID_STAMP):
	@mkdir -p $(MERMAID)
	npm install --silent --no-audit --no-fund --ignore-scripts --prefix $(MERMAID) mermaid@$(MERMAID_VERSION)
	@test -s $(TFGATE_TEST_MERMAID)
	@touch $@

# Debian's chromium, headless, for the Mermaid check (and fonts-liberation, so that labels
# have a font where no desktop is installed): installed with apt-get when missing
# (as root, else through sudo), silent when present. CHROMIUM=… names another Chromium or Chrome.
chromium:
	@test -x $(CHROMIUM) || { echo "installing Debian's chromium (once)…"; \
	  $(if $(filter 0,$(shell id -u)),,sudo) sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null'; }
	@test -x $(CHROMIUM) || { echo "make chromium: no $(CHROMIUM)"; exit 1; }

# actionlint and act, built from the Go module proxy once (under a minute each) into .bin/.
actionlint: $(ACTIONLINT_STAMP)
$(ACTIONLINT_STAMP):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/rhysd/actionlint/cmd/actionlint@v$(ACTIONLINT_VERSION)
	@$(ACTIONLINT) -version | head -1 | grep -qx 'v$(ACTIONLINT_VERSION)'
	@touch $@

staticcheck: $(STATICCHECK_STAMP)
$(STATICCHECK_STAMP):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@v$(STATICCHECK_VERSION)
	@$(STATICCHECK) -version | grep -qF '($(STATICCHECK_VERSION))'
	@touch $@

act: $(ACT_STAMP)
$(ACT_STAMP):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/nektos/act@v$(ACT_VERSION)
	@$(ACT) --version | grep -qx 'act version $(ACT_VERSION)'
	@touch $@

actions:
	@for a in $(PINNED_ACTIONS); do n=$${a%@*}; v=$${a#*@}; \
	  [ -f "$(ACTIONS)/$$n/action.yml" ] && continue; \
	  mkdir -p $(BIN)/actions; \
	  git clone -q --depth 1 --branch $$v https://github.com/actions/$$n $(BIN)/actions/$$n || \
	    { echo "make actions: cannot fetch actions/$$n $$v; put checkout v4.4.0, upload-artifact v4.6.2 and download-artifact v4.3.0 into .bin/actions/ (or ../shared/testdata/actions/)"; exit 1; }; \
	done

# conftest from the Go module proxy (a few minutes once; cached in .bin/). Built with
# `go install`, it reports its version as "dev": the module's own version is checked.
conftest: $(CONFTEST_STAMP)
$(CONFTEST_STAMP):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/open-policy-agent/conftest@v$(CONFTEST_VERSION)
	@$(GO) version -m $(CONFTEST) | grep -q 'mod.*github.com/open-policy-agent/conftest.*v$(CONFTEST_VERSION)'
	@touch $@

# goreleaser from the Go module proxy (a few minutes once; cached in .bin/).
goreleaser: $(GORELEASER_STAMP)
$(GORELEASER_STAMP):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/goreleaser/goreleaser/v2@v$(GORELEASER_VERSION)
	@$(GO) version -m $(GORELEASER) | grep -q 'mod.*github.com/goreleaser/goreleaser/v2.*v$(GORELEASER_VERSION)'
	@touch $@

# What make test checks of the release, cheaply: the configuration, and a snapshot build for
# this machine only (into dist/, git-ignored).
release-check: goreleaser
	$(call phase,goreleaser check and a snapshot build)
	$(GORELEASER) check
	$(GORELEASER_ENV) $(GORELEASER) build --snapshot --single-target --clean

# syft, which writes the SBOMs goreleaser asks for, from the Go module proxy (about ten
# minutes once on 2 cores; cached in .bin/; make release-snapshot only).
syft: $(SYFT_STAMP)
$(SYFT_STAMP):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/anchore/syft/cmd/syft@v$(SYFT_VERSION)
	@$(GO) version -m $(BIN)/syft | grep -q 'mod.*github.com/anchore/syft.*v$(SYFT_VERSION)'
	@touch $@

# A full local release without publishing: every archive, checksums.txt and the SBOMs (syft
# from .bin/), in dist/.
release-snapshot: goreleaser syft
	PATH="$(BIN):$$PATH" $(GORELEASER_ENV) $(GORELEASER) release --snapshot --clean

# Lint every workflow; actionlint also checks the inputs given to action.yml where a workflow
# uses it as `uses: ./`. shellcheck is not on every machine, so it is off unless named
# (make lint-workflows SHELLCHECK=shellcheck): the result must not depend on the machine.
SHELLCHECK ?=
lint-workflows: actionlint
	$(call phase,actionlint over the workflows)
	$(ACTIONLINT) -shellcheck='$(SHELLCHECK)' -pyflakes= $(WORKFLOWS)

vet:
	$(call phase,go vet)
	$(GO) vet ./...

# staticcheck's default checks (staticcheck.conf says which are off, and why).
lint: staticcheck
	$(call phase,staticcheck)
	$(STATICCHECK) ./...

# Everything: vet, staticcheck, workflow lint, unit and end-to-end tests (real terraform, real binary, the
# fake GitHub held to GitHub's OpenAPI description, the Action in a real runner, the Mermaid
# goldens parsed and drawn by Mermaid in headless Chromium), Rego policy tests. The end-to-end
# scenarios (cmd/tfgate's testscripts) run twice: with the pinned terraform, then with OpenTofu
# (about 2 more minutes).
# It says which phase runs, and since when (make test takes 15–18 minutes on a loaded 2-core
# machine): the unit tests, the end-to-end packages (cmd/tfgate's testscripts, internal/e2e's
# act runs) each in a go test of its own — together every package of ./..., as one go test
# of ./... would run them — then OpenTofu and the policy tests. On Linux the read guard
# (Landlock) must be there: its tests fail instead of skipping.
test: terraform tofu fakecloud openapi mermaid chromium act actions vet lint lint-workflows release-check build
	$(call phase,unit tests: go test -race of every package but $(E2E_PKGS))
	$(GO) test -race -count=1 -timeout 30m $(UNIT_PKGS)
	$(call phase,end-to-end testscripts with terraform $(TERRAFORM_VERSION): go test -race ./cmd/tfgate)
	$(GO) test -race -count=1 -timeout 30m ./cmd/tfgate
	$(call phase,the Action in a real runner: go test -race ./internal/e2e (act))
	$(GO) test -race -count=1 -timeout 30m ./internal/e2e
	$(call phase,end-to-end testscripts again with OpenTofu $(TOFU_VERSION))
	TFGATE_TEST_TERRAFORM=$(TOFU) $(GO) test -race -count=1 -timeout 15m -run '^TestScripts$$' ./cmd/tfgate
	$(call phase,Rego policy tests)
	$(TFGATE) policy test policies
	$(TFGATE) policy test examples/monorepo/policies
	$(call phase,make test passed)
ifeq ($(shell uname -s),Linux)
test: export TFGATE_REQUIRE_READ_GUARD := 1
endif

# The edit–test loop, under 3 minutes: the unit tests and the testscripts with terraform,
# without -race, act, OpenTofu or the linters, and without the slowest tests (QUICK_SKIP_TESTS,
# QUICK_SKIP): make test runs them all. A new test runs here unless it is listed.
test-quick: terraform fakecloud openapi mermaid chromium
	$(call phase,unit tests but the slowest: go test of every package but $(E2E_PKGS))
	$(GO) test -count=1 -timeout 10m -skip '^($(call alternation,$(QUICK_SKIP_TESTS)))$$' $(UNIT_PKGS)
	$(call phase,the fast testscripts with terraform $(TERRAFORM_VERSION): go test ./cmd/tfgate)
	$(GO) test -count=1 -timeout 10m -skip '^TestScripts$$/^($(call alternation,$(QUICK_SKIP)))$$' ./cmd/tfgate
	$(call phase,make test-quick passed)

# The Go benchmarks of the hot paths, then the whole-process comparisons of issue 12
# (internal/bench): tfgate against raw terraform and conftest, the ratios in one table.
bench: terraform fakecloud openapi
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@$(MAKE) --no-print-directory bench-compare

# The seeded kill campaign of issue 20 (cmd/tfgate/killcampaign_test.go): slow applies on
# the pg backend cut off by SIGTERM, SIGINT, SIGKILL of tfgate or a PostgreSQL crash, each
# re-run; prints the table (corrupt state, created twice, false "applied", orphaned
# processes: all must be 0). KILL_SEED and KILL_TRIALS choose the campaign.
KILL_SEED ?= 1
KILL_TRIALS ?= 24
kill-campaign: terraform fakecloud openapi
	@KILL_CAMPAIGN_OUT=$(CURDIR)/kill-campaign.md $(GO) test -count=1 -run '^TestKillCampaign$$' -parallel 2 -timeout 60m ./cmd/tfgate -args -kill.seed $(KILL_SEED) -kill.trials $(KILL_TRIALS); \
		status=$$?; cat $(CURDIR)/kill-campaign.md; exit $$status

bench-compare: terraform conftest build
	$(GO) run ./internal/bench -tfgate $(TFGATE) -terraform $(TERRAFORM) -conftest $(CONFTEST) -policies policies

# Plan the example monorepo with the pinned terraform. Its policies deny one project on
# purpose (a protected resource is deleted), so the expected exit code is 3.
demo: build terraform fakecloud
	TFGATE_TERRAFORM=$(TERRAFORM) $(TFGATE) -C examples/monorepo projects
	@echo
	@TFGATE_TERRAFORM=$(TERRAFORM) $(TFGATE) -C examples/monorepo plan --all; code=$$?; \
	  if [ $$code -eq 3 ]; then echo "(exit 3: a policy denied envs/prod/network, as this demo intends)"; else exit $$code; fi
	@echo
	@echo "== tfgate drift: examples/drift on the fakecloud test provider, in a scratch copy"
	@d=$$(mktemp -d); trap 'rm -rf "$$d"' EXIT; set -e; \
	  mkdir -p "$$d/repo/drift"; cp examples/drift/main.tf "$$d/repo/drift/"; \
	  printf 'provider_installation {\n  filesystem_mirror {\n    path    = "%s"\n    include = ["registry.terraform.io/tfgate/fakecloud"]\n  }\n  direct {\n    exclude = ["registry.terraform.io/tfgate/fakecloud"]\n  }\n}\n' "$(PLUGINS)" > "$$d/tfrc"; \
	  export TF_CLI_CONFIG_FILE="$$d/tfrc"; \
	  git -C "$$d/repo" init -q; git -C "$$d/repo" add -A; \
	  git -C "$$d/repo" -c user.name=demo -c user.email=demo@example.com commit -qm demo; \
	  $(TERRAFORM) -chdir="$$d/repo/drift" init -input=false >/dev/null; \
	  $(TERRAFORM) -chdir="$$d/repo/drift" apply -auto-approve -input=false >/dev/null; \
	  echo '$$ sed -i s/replicas=2/replicas=5/ objects/web.json   # someone clicks in a console'; \
	  sed -i 's/replicas=2/replicas=5/' "$$d/repo/drift/objects/web.json"; \
	  set +e; TFGATE_TERRAFORM=$(TERRAFORM) $(TFGATE) -C "$$d/repo" drift --report none; code=$$?; \
	  if [ $$code -eq 2 ]; then echo "(exit 2: drift found, as this demo intends; tfgate never fixes it)"; else exit $$code; fi

clean:
	rm -rf $(TFGATE) examples/monorepo/envs/*/*/.terraform
