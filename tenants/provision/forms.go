package provision

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
)

// MaxFields bounds the custom fields one form declares.
const MaxFields = 200

// FormInput is a form's definition as created or saved; FormID names it.
type FormInput struct {
	TenantID      string
	FormID        string
	Name          string
	Open          bool
	Fields        []tenants.FieldDef
	Retention     string
	RetentionFrom string
	// PrimaryFor and ContactFor: how long the consents given on the hosted page last
	// (intervals; "" is the default, tenants.DefaultPrimaryFor and DefaultContactFor).
	PrimaryFor, ContactFor string
	// HostedPage and AllowNoJS: the hosted page, and its no-script fallback (docs/API.md §14).
	HostedPage, AllowNoJS bool
}

// CheckForm validates a definition; a custom field's violations name the input
// "field.<i>.name" or "field.<i>.type".
func CheckForm(in FormInput) tenants.Violations {
	var c checks
	c.form(in)
	return c.vs
}

// consentFor checks how long the consents given on a hosted page last: an interval, or
// nothing for the default.
func (c *checks) consentFor(field, v string) {
	if iv, err := consent.ParseInterval(v); v != "" && (err != nil || iv.IsZero()) {
		c.add(field, CodeInvalid, "Give an interval such as 1y or P18M, or nothing for the default.")
	}
}

func (c *checks) form(in FormInput) {
	if !tenants.ValidFormID(in.FormID) {
		c.add("form_id", CodeInvalid, "Use 1 to 128 characters: letters, digits, and . _ : -")
	}
	c.name("name", in.Name, MaxFormName, false, "Use at most 200 characters.")
	c.retention(in.Retention, in.RetentionFrom)
	c.consentFor("primary_for", in.PrimaryFor)
	c.consentFor("contact_for", in.ContactFor)
	if len(in.Fields) > MaxFields {
		c.add("field", CodeTooLong, "Declare at most 200 custom fields.")
	}
	seen := map[string]bool{}
	for i, f := range in.Fields {
		field := "field." + strconv.Itoa(i) + "."
		switch {
		case f.Name == "":
			c.add(field+"name", CodeRequired, "Give the field a name.")
		case tooLong(f.Name, MaxFieldName) || strings.IndexFunc(f.Name, unicode.IsControl) >= 0:
			c.add(field+"name", CodeInvalid, "Use at most 128 printable characters.")
		case seen[f.Name]:
			c.add(field+"name", CodeTaken, "Another field has this name.")
		}
		seen[f.Name] = true
		if !slices.Contains(tenants.FieldTypes(), f.Type) {
			c.add(field+"type", CodeUnknown, "Choose a type.")
		}
		c.pageField(field, f)
	}
}

// pageField checks what a field shows on the hosted page: label, help text, a select's options.
func (c *checks) pageField(field string, f tenants.FieldDef) {
	if tooLong(f.Label, MaxFormName) {
		c.add(field+"label", CodeTooLong, "Use at most 200 characters.")
	}
	if tooLong(f.Help, 500) {
		c.add(field+"help", CodeTooLong, "Use at most 500 characters.")
	}
	switch {
	case f.Type == tenants.FieldSelect && len(f.Options) == 0:
		c.add(field+"options", CodeRequired, "Give the choices, one per line.")
	case len(f.Options) > 100 || slices.ContainsFunc(f.Options, func(o string) bool { return tooLong(o, MaxFormName) }):
		c.add(field+"options", CodeTooLong, "Give at most 100 choices of at most 200 characters.")
	}
}

// CreateForm creates a form; a form id the tenant has is a violation of "form_id".
func (s *Service) CreateForm(ctx context.Context, a Actor, in FormInput) (tenants.Form, error) {
	var c checks
	if err := c.tenant(ctx, s, in.TenantID); err != nil {
		return tenants.Form{}, err
	}
	c.form(in)
	if err := c.err(); err != nil {
		return tenants.Form{}, err
	}
	now := s.now()
	f := tenants.Form{TenantID: in.TenantID, FormID: in.FormID, CreatedAt: now}
	set(&f, in, now)
	err := s.Forms.Insert(ctx, f)
	if errors.Is(err, tenants.ErrConflict) {
		c.add("form_id", CodeTaken, "A form with this id exists already.")
		return tenants.Form{}, c.err()
	}
	if err != nil {
		return tenants.Form{}, err
	}
	return f, s.audit(ctx, a, in.TenantID, tenants.ActionFormChanged, "created", f.FormID)
}

// SaveForm replaces the definition of the tenant's form in.FormID; tenants.ErrNotFound when
// it has none.
func (s *Service) SaveForm(ctx context.Context, a Actor, in FormInput) (tenants.Form, error) {
	f, err := s.Forms.Get(ctx, in.TenantID, in.FormID)
	if err != nil {
		return tenants.Form{}, err
	}
	if vs := CheckForm(in); len(vs) > 0 {
		return tenants.Form{}, vs
	}
	set(&f, in, s.now())
	if err := s.Forms.Save(ctx, f); err != nil {
		return tenants.Form{}, err
	}
	return f, s.audit(ctx, a, in.TenantID, tenants.ActionFormChanged, "saved", f.FormID)
}

// set copies a valid definition onto f.
func set(f *tenants.Form, in FormInput, now time.Time) {
	f.Name, f.Open, f.Fields, f.UpdatedAt = in.Name, in.Open, slices.Clone(in.Fields), now
	f.PrimaryFor, f.ContactFor = strings.TrimSpace(in.PrimaryFor), strings.TrimSpace(in.ContactFor)
	f.HostedPage, f.AllowNoJS = in.HostedPage, in.AllowNoJS
	f.Retention, f.RetentionFrom = "", ""
	if in.Retention != "" {
		f.Retention, f.RetentionFrom = in.Retention, tenants.RetentionBasis(in.RetentionFrom)
	}
}
