// Package testprovider is fakecloud, a real Terraform provider for tfgate's tests: its one
// resource, fakecloud_object, is a JSON file in a directory, so a test makes drift by editing
// a file, tests redaction with a sensitive attribute, and makes slow or failing applies on
// demand. It is never shipped; cmd/terraform-provider-fakecloud builds the plugin binary.
package testprovider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Address is the provider's source address under terraform; configurations require it as
// "tfgate/fakecloud", which each flavour qualifies with its own default registry host.
const Address = "registry.terraform.io/tfgate/fakecloud"

// TofuAddress is what OpenTofu reads "tfgate/fakecloud" as.
const TofuAddress = "registry.opentofu.org/tfgate/fakecloud"

// Addresses are the addresses a filesystem mirror holds fakecloud under, one per flavour, so
// that the same configurations install it with terraform and with tofu.
var Addresses = []string{Address, TofuAddress}

// New returns the provider constructor that providerserver.Serve expects.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &fakecloud{version: version} }
}

var dirPath = path.Root("dir")

type fakecloud struct {
	version string
}

type providerModel struct {
	Dir types.String `tfsdk:"dir"`
}

func (p *fakecloud) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "fakecloud"
	resp.Version = p.version
}

func (p *fakecloud) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Objects are JSON files in a directory; for tests only.",
		Attributes: map[string]schema.Attribute{
			"dir": schema.StringAttribute{
				Description: "Directory holding the objects (<dir>/<name>.json); relative to terraform's working directory. Created when missing.",
				Required:    true,
			},
		},
	}
}

func (p *fakecloud) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.Dir.IsUnknown() {
		resp.Diagnostics.AddAttributeError(dirPath, "dir is not known yet",
			"fakecloud needs its directory at plan time: set dir to a literal or a variable.")
		return
	}
	if cfg.Dir.ValueString() == "" {
		resp.Diagnostics.AddAttributeError(dirPath, "dir is empty",
			fmt.Sprintf("Set dir in the %s provider block to the directory that holds the objects.", Address))
		return
	}
	resp.ResourceData = store{dir: cfg.Dir.ValueString()}
}

func (p *fakecloud) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newObject}
}

func (p *fakecloud) DataSources(context.Context) []func() datasource.DataSource {
	return nil
}
