#!/bin/sh
# Captures the fixtures of jsonui_test.go from a real terraform (1.5.7, the pinned one):
#   TERRAFORM=.bin/terraform sh internal/terraform/testdata/jsonui/capture.sh
# Each NAME.jsonl is terraform's machine-readable UI (stdout of -json); each NAME.txt is
# the stderr of the same command with the text UI (-no-color), which the decoder renders the
# JSON diagnostics back into. Timestamps and ids differ from run to run; nothing reads them.
set -eu
out=$(cd "$(dirname "$0")" && pwd)
tf=$(cd "$(dirname "$TERRAFORM")" && pwd)/$(basename "$TERRAFORM")
export TF_CLI_CONFIG_FILE=/dev/null CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# both NAME ARGS...: the command with -json into NAME.jsonl, then as text into NAME.txt.
both() {
  name=$1; shift
  "$tf" "$@" -json > "$out/$name.jsonl" || true
  "$tf" "$@" -no-color > /dev/null 2> "$out/$name.txt" || true
}

mkdir "$work/ok"; cd "$work/ok"
cat > main.tf <<'TF'
resource "terraform_data" "a" {
  count = 3
  input = "v${count.index}"
}
resource "terraform_data" "b" {
  input            = "b"
  triggers_replace = "one"
}
TF
"$tf" init -input=false -no-color > /dev/null
"$tf" plan -json -input=false -out=create.tfplan > "$out/plan-create.jsonl"
"$tf" apply -json -input=false create.tfplan > "$out/apply-create.jsonl"
sed -i 's/"one"/"two"/; s/count = 3/count = 2/; s/"b"$/"b2"/' main.tf
"$tf" plan -json -input=false -out=change.tfplan > "$out/plan-change.jsonl" || true
"$tf" apply -json -input=false change.tfplan > "$out/apply-change.jsonl"

mkdir "$work/varfile"; cd "$work/varfile"
cat > main.tf <<'TF'
variable "pw" {
  type      = string
  sensitive = true
}
resource "terraform_data" "x" {
  input = var.pw
}
TF
printf 'pw = "SEKRIT-PW-111" oops\n' > secret.tfvars
"$tf" init -input=false -no-color > /dev/null
both diag-varfile plan -input=false -var-file=secret.tfvars

mkdir "$work/config"; cd "$work/config"
cat > main.tf <<'TF'
variable "n" {
  type    = number
  default = 3
}
locals {
  m = { a = 1 }
}
resource "terraform_data" "x" {
  count = 2
  input = local.m["b"] + var.n
}
resource "terraform_data" "y" {
  input = upper(1, 2)
}
resource "terraform_data" "z" {
  bogus = 1
}
TF
"$tf" init -input=false -no-color > /dev/null
both diag-config plan -input=false

mkdir "$work/instance"; cd "$work/instance"
cat > main.tf <<'TF'
variable "n" {
  type    = number
  default = 3
  validation {
    condition     = var.n > 5
    error_message = "The number n must be over five, and this message is long enough that terraform wraps it when it renders the detail for a human reader."
  }
}
TF
"$tf" init -input=false -no-color > /dev/null
both diag-validation plan -input=false
cat > main.tf <<'TF'
resource "terraform_data" "x" {
  count = 2
  input = count.index
  lifecycle {
    precondition {
      condition     = count.index > 5
      error_message = "Index ${count.index} is too small."
    }
  }
}
TF
both diag-address plan -input=false
