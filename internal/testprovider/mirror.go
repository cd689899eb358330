package testprovider

import (
	"fmt"
	"strings"
)

// CLIConfig is the terraform (or tofu) CLI configuration, for a test's own
// TF_CLI_CONFIG_FILE, that installs fakecloud from the filesystem mirror at pluginsDir —
// `make fakecloud` builds one at .bin/plugins, exported to tests as TFGATE_TEST_PLUGINS —
// and every other provider directly, so `init` never asks a registry for fakecloud. It names
// every one of Addresses: terraform and tofu read "tfgate/fakecloud" under different hosts.
func CLIConfig(pluginsDir string) string {
	quoted := make([]string, len(Addresses))
	for i, a := range Addresses {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	list := strings.Join(quoted, ", ")
	return fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = [%s]
  }
  direct {
    exclude = [%s]
  }
}
`, pluginsDir, list, list)
}
