# A project on fakecloud, tfgate's test provider: each object is a JSON file in objects/,
# so editing one by hand is drift that terraform (and tfgate) can see. See README.md.
terraform {
  required_providers {
    fakecloud = { source = "tfgate/fakecloud" }
  }
}

provider "fakecloud" {
  dir = "objects"
}

resource "fakecloud_object" "web" {
  name    = "web"
  content = "replicas=2"
  tags    = { env = "prod", team = "web" }
}

resource "fakecloud_object" "db" {
  name    = "db"
  content = "size=small"
  secret  = "example-password" # sensitive: shown as (sensitive value)
}
