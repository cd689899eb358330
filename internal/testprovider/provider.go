// Package testprovider is fakecloud, a real Terraform provider for tfgate's tests: its one
// resource, fakecloud_object, is a JSON file in a directory, so a test makes drift by editing
// a file, tests redaction with a sensitive attribute, and makes slow or failing applies on
// demand. It is never shipped; cmd/terraform-provider-fakecloud builds the plugin binary.
package testprovider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

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

// RootEnv names the environment variable that, when set, is the cloud a relative dir lives
// in: tfgate runs terraform in a temporary tree of its own, under a guard that keeps it out
// of the checkout, so a test's objects belong in a directory of the test's (outside any
// repository) that every run of every project, tfgate's or a bare terraform's, agrees on.
const RootEnv = "FAKECLOUD_ROOT"

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
				Description: "Directory holding the objects (<dir>/<name>.json). Created when missing. " +
					"A relative dir is inside $" + RootEnv + " when that is set (\"objects\" and \"../../objects\" are both " +
					"$" + RootEnv + "/objects: the path is cleaned as if rooted there), else relative to terraform's working directory.",
				Required: true,
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
	resp.ResourceData = store{dir: resolveDir(cfg.Dir.ValueString(), os.Getenv(RootEnv))}
}

// resolveDir places a relative dir inside root, when there is one: cleaned as a path rooted
// there, so that no number of ".." leaves it and configurations written for the working
// directory ("objects") or for beside the checkout ("../../objects") name the same cloud.
func resolveDir(dir, root string) string {
	if root == "" || filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(root, filepath.Clean(string(filepath.Separator)+dir))
}

func (p *fakecloud) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newObject}
}

func (p *fakecloud) DataSources(context.Context) []func() datasource.DataSource {
	return nil
}
