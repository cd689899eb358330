variable "db_password" {
  type      = string
  sensitive = true
}

module "app" {
  source      = "../../../modules/app"
  name        = "app-prod"
  size        = 4
  image       = "app:1.1"
  db_password = var.db_password
}
