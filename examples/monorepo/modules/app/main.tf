# A shared module: one "service" made of terraform_data resources, so the example runs with
# no provider downloads.

variable "name" {
  type = string
}

variable "size" {
  type    = number
  default = 1
}

variable "db_password" {
  type      = string
  sensitive = true
}

variable "image" {
  type    = string
  default = "app:1.0"
}

# A new image replaces the service (triggers_replace), a new size updates it in place.
resource "terraform_data" "service" {
  input = {
    name  = var.name
    image = var.image
  }
  triggers_replace = var.image
}

resource "terraform_data" "scaling" {
  input = {
    replicas = var.size
  }
}

# The password sits inside an object: terraform marks the nested attribute sensitive, and
# tfgate must show it as (sensitive) wherever it appears.
resource "terraform_data" "database" {
  input = {
    engine = "postgres"
    settings = {
      user     = "app"
      password = var.db_password
    }
  }
}

output "service_id" {
  value = terraform_data.service.id
}
