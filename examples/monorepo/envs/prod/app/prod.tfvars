db_password = "prod-demo-password-not-a-real-secret"
