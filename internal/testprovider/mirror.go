package testprovider

import "fmt"

// CLIConfig is the terraform CLI configuration (for a test's own TF_CLI_CONFIG_FILE) that
// installs fakecloud from the filesystem mirror at pluginsDir — `make fakecloud` builds one
// at .bin/plugins, exported to tests as TFGATE_TEST_PLUGINS — and every other provider
// directly, so `terraform init` never asks a registry for fakecloud.
func CLIConfig(pluginsDir string) string {
	return fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = [%q]
  }
  direct {
    exclude = [%q]
  }
}
`, pluginsDir, Address, Address)
}
