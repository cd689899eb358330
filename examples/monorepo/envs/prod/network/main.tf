resource "terraform_data" "main_vpc" {
  input = {
    cidr = "10.0.0.0/16"
  }
}

moved {
  from = terraform_data.vpc
  to   = terraform_data.main_vpc
}

resource "terraform_data" "subnet" {
  for_each = toset(["a", "b"])
  input = {
    zone = each.key
    cidr = cidrsubnet("10.0.0.0/16", 8, index(["a", "b"], each.key))
  }
}
