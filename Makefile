# tfgate — the two commands a newcomer needs are `make demo` and `make test`.
GO                ?= go
TERRAFORM_VERSION := 1.5.7
BIN               := $(CURDIR)/.bin
TERRAFORM         := $(BIN)/terraform
TERRAFORM_STAMP   := $(BIN)/.terraform-$(TERRAFORM_VERSION)
TFGATE            := $(BIN)/tfgate
ACTIONLINT_VERSION := 1.7.12
ACTIONLINT        := $(BIN)/actionlint
ACTIONLINT_STAMP  := $(BIN)/.actionlint-$(ACTIONLINT_VERSION)
ACT_VERSION       := 0.2.89
ACT               := $(BIN)/act
ACT_STAMP         := $(BIN)/.act-$(ACT_VERSION)
# Every workflow file; action.yml is checked through the workflow that runs it (`uses: ./`).
WORKFLOWS         := $(wildcard .github/workflows/*.yml examples/workflows/*.yml)
VERSION           ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS           := -X github.com/tfgate/tfgate/internal/cli.Version=$(VERSION)

# Tests and the demo run the pinned terraform with an empty CLI config: quiet, reproducible,
# and never reaching a registry.
export TF_CLI_CONFIG_FILE := /dev/null
export TFGATE_TEST_TERRAFORM := $(TERRAFORM)
# The act end-to-end test (internal/e2e) runs the example workflows in this act.
export TFGATE_TEST_ACT := $(ACT)

.PHONY: all build terraform actionlint act lint-workflows test vet bench demo clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -ldflags '$(LDFLAGS)' -o $(TFGATE) ./cmd/tfgate

# terraform 1.5.7 built from the Go module proxy (about 3 minutes once; cached in .bin/).
terraform: $(TERRAFORM_STAMP)
$(TERRAFORM_STAMP):
	@mkdir -p $(BIN)
	@echo "building terraform $(TERRAFORM_VERSION) into .bin/ (once; a few minutes)…"
	GOBIN=$(BIN) $(GO) install github.com/hashicorp/terraform@v$(TERRAFORM_VERSION)
	@$(TERRAFORM) version | head -1 | grep -q 'v$(TERRAFORM_VERSION)'
	@touch $@

# actionlint and act, built from the Go module proxy once (under a minute each) into .bin/.
actionlint: $(ACTIONLINT_STAMP)
$(ACTIONLINT_STAMP):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/rhysd/actionlint/cmd/actionlint@v$(ACTIONLINT_VERSION)
	@$(ACTIONLINT) -version | head -1 | grep -qx 'v$(ACTIONLINT_VERSION)'
	@touch $@

act: $(ACT_STAMP)
$(ACT_STAMP):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/nektos/act@v$(ACT_VERSION)
	@$(ACT) --version | grep -qx 'act version $(ACT_VERSION)'
	@touch $@

# Lint every workflow; actionlint also checks the inputs given to action.yml where a workflow
# uses it as `uses: ./`. shellcheck is not on every machine, so it is off unless named
# (make lint-workflows SHELLCHECK=shellcheck): the result must not depend on the machine.
SHELLCHECK ?=
lint-workflows: actionlint
	$(ACTIONLINT) -shellcheck='$(SHELLCHECK)' -pyflakes= $(WORKFLOWS)

vet:
	$(GO) vet ./...

# Everything: vet, workflow lint, unit and end-to-end tests (real terraform, real binary, the
# Action in a real runner), Rego policy tests.
test: terraform act vet lint-workflows build
	$(GO) test -race -count=1 -timeout 30m ./...
	$(TFGATE) policy test policies
	$(TFGATE) policy test examples/monorepo/policies

bench: terraform
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Plan the example monorepo with the pinned terraform. Its policies deny one project on
# purpose (a protected resource is deleted), so the expected exit code is 3.
demo: build terraform
	TFGATE_TERRAFORM=$(TERRAFORM) $(TFGATE) -C examples/monorepo projects
	@echo
	@TFGATE_TERRAFORM=$(TERRAFORM) $(TFGATE) -C examples/monorepo plan --all; code=$$?; \
	  if [ $$code -eq 3 ]; then echo "(exit 3: a policy denied envs/prod/network, as this demo intends)"; else exit $$code; fi

clean:
	rm -rf $(TFGATE) examples/monorepo/envs/*/*/.terraform
