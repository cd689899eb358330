// Command terraform-provider-fakecloud serves the fakecloud test provider to terraform
// (plugin protocol 6). `make fakecloud` installs it into a filesystem mirror under .bin/plugins.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tfgate/tfgate/internal/testprovider"
)

// version is set by the Makefile (-ldflags -X) to the mirror's version directory.
var version = "0.1.0"

func main() {
	err := providerserver.Serve(context.Background(), testprovider.New(version), providerserver.ServeOpts{
		Address:         testprovider.Address,
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err)
	}
}
