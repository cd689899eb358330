package testprovider

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// objectResource is fakecloud_object. name, content, tags and secret live in the file;
// sleep_ms and fail_on_apply are knobs for fault tests and live only in configuration
// and state.
type objectResource struct {
	store store
}

var (
	_ resource.ResourceWithConfigure      = (*objectResource)(nil)
	_ resource.ResourceWithImportState    = (*objectResource)(nil)
	_ resource.ResourceWithValidateConfig = (*objectResource)(nil)
)

func newObject() resource.Resource { return &objectResource{} }

type objectModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Content     types.String `tfsdk:"content"`
	Tags        types.Map    `tfsdk:"tags"`
	Secret      types.String `tfsdk:"secret"`
	SleepMS     types.Int64  `tfsdk:"sleep_ms"`
	FailOnApply types.Bool   `tfsdk:"fail_on_apply"`
}

func (r *objectResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_object"
}

func (r *objectResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "An object: the JSON file <dir>/<name>.json. Edit or delete the file to make drift.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Description:   "The object's name.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Description:   "File name without .json; changing it replaces the object.",
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"content": schema.StringAttribute{Optional: true},
			"tags":    schema.MapAttribute{Optional: true, ElementType: types.StringType},
			"secret": schema.StringAttribute{
				Description: "Stored in the file like content, but marked sensitive.",
				Optional:    true,
				Sensitive:   true,
			},
			"sleep_ms": schema.Int64Attribute{
				Description: "Create, Update and Delete sleep this long first, holding <dir>/.<name>.sleeping meanwhile; an interrupt cuts the sleep short and fails the operation.",
				Optional:    true,
			},
			"fail_on_apply": schema.BoolAttribute{
				Description: "Create and Update fail (after sleep_ms) without writing anything.",
				Optional:    true,
			},
		},
	}
}

func (r *objectResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if req.ProviderData == nil { // not configured yet (validation runs before Configure)
		return
	}
	s, ok := req.ProviderData.(store)
	if !ok {
		resp.Diagnostics.AddError("fakecloud: unexpected provider data", fmt.Sprintf("got %T", req.ProviderData))
		return
	}
	r.store = s
}

func (r *objectResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if !name.IsNull() && !name.IsUnknown() {
		if err := validName(name.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("name"), "invalid fakecloud_object name", err.Error())
		}
	}
	var sleep types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sleep_ms"), &sleep)...)
	if !sleep.IsNull() && !sleep.IsUnknown() && sleep.ValueInt64() < 0 {
		resp.Diagnostics.AddAttributeError(path.Root("sleep_ms"), "sleep_ms is negative", "Set sleep_ms to 0 or more milliseconds.")
	}
}

func (r *objectResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan objectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := plan.Name.ValueString()
	if !r.fault(ctx, "create", plan, &resp.Diagnostics) {
		return
	}
	if exists, err := r.store.exists(name); err != nil || exists {
		if err == nil {
			err = fmt.Errorf("%s exists already: import it (terraform import ADDRESS %s) or delete the file", r.store.path(name), name)
		}
		resp.Diagnostics.AddError(fmt.Sprintf("create fakecloud_object %q", name), err.Error())
		return
	}
	if !r.write(ctx, "create", plan, &resp.Diagnostics) {
		return
	}
	plan.ID = plan.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *objectResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state objectModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.Name.ValueString()
	obj, found, err := r.store.get(name)
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("read fakecloud_object %q", name), err.Error())
		return
	}
	if !found { // deleted out of band: terraform plans to create it again
		resp.State.RemoveResource(ctx)
		return
	}
	state.ID = types.StringValue(name)
	state.Content = types.StringPointerValue(obj.Content)
	state.Secret = types.StringPointerValue(obj.Secret)
	tags, d := tagsValue(ctx, obj.Tags)
	resp.Diagnostics.Append(d...)
	state.Tags = tags
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *objectResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan objectModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.fault(ctx, "update", plan, &resp.Diagnostics) || !r.write(ctx, "update", plan, &resp.Diagnostics) {
		return
	}
	plan.ID = plan.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *objectResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state objectModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := state.Name.ValueString()
	if err := r.sleep(ctx, name, state.SleepMS); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("delete fakecloud_object %q interrupted", name), err.Error())
		return
	}
	if err := r.store.remove(name); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("delete fakecloud_object %q", name), err.Error())
	}
}

// ImportState takes the object's name as the import ID; Read then fills in the rest, or
// reports the object missing when there is no file.
func (r *objectResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

// fault applies sleep_ms and fail_on_apply before a write; false means stop (diagnostics added).
func (r *objectResource) fault(ctx context.Context, op string, m objectModel, diags *diag.Diagnostics) bool {
	name := m.Name.ValueString()
	if err := r.sleep(ctx, name, m.SleepMS); err != nil {
		diags.AddError(fmt.Sprintf("%s fakecloud_object %q interrupted", op, name), err.Error())
		return false
	}
	if m.FailOnApply.ValueBool() {
		diags.AddAttributeError(path.Root("fail_on_apply"), fmt.Sprintf("%s fakecloud_object %q failed", op, name),
			"fail_on_apply is true: this object fails on purpose and nothing was written.")
		return false
	}
	return true
}

func (r *objectResource) write(ctx context.Context, op string, m objectModel, diags *diag.Diagnostics) bool {
	name := m.Name.ValueString()
	obj := object{Name: name, Content: m.Content.ValueStringPointer(), Secret: m.Secret.ValueStringPointer()}
	if !m.Tags.IsNull() {
		obj.Tags = map[string]string{}
		diags.Append(m.Tags.ElementsAs(ctx, &obj.Tags, false)...)
		if diags.HasError() {
			return false
		}
	}
	if err := r.store.put(obj); err != nil {
		diags.AddError(fmt.Sprintf("%s fakecloud_object %q", op, name), err.Error())
		return false
	}
	return true
}

func tagsValue(ctx context.Context, tags map[string]string) (types.Map, diag.Diagnostics) {
	if tags == nil {
		return types.MapNull(types.StringType), nil
	}
	return types.MapValueFrom(ctx, types.StringType, tags)
}

// sleep waits ms milliseconds or until ctx is done: terraform's interrupt (the provider's
// Stop) cancels ctx, so a slow apply stops promptly and terraform saves its state.
//
// Stop only cancels requests already in flight, and terraform reports an apply started
// (apply_start in -json) just before it sends the request; so while it sleeps the provider
// holds <dir>/.<name>.sleeping, which tells a test that an interrupt now will be seen.
func (r *objectResource) sleep(ctx context.Context, name string, ms types.Int64) error {
	if ms.IsNull() || ms.ValueInt64() <= 0 {
		return nil
	}
	marker, err := r.store.sleeping(name)
	if err != nil {
		return err
	}
	defer os.Remove(marker)
	t := time.NewTimer(time.Duration(ms.ValueInt64()) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
