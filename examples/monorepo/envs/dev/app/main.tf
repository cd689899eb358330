variable "db_password" {
  type      = string
  sensitive = true
}

module "app" {
  source      = "../../../modules/app"
  name        = "app-dev"
  size        = 1
  image       = "app:1.1"
  db_password = var.db_password
}

resource "terraform_data" "dashboard" {
  input = "dev dashboard"
}
