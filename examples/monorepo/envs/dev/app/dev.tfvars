db_password = "dev-demo-password-not-a-real-secret"
