// Templates in versions, their owners and the builder's properties (docs/templates.md).
//   - each version of a template is a row of its own (envelopes keep pointing at the row they were created
//     from): `family_id` groups the versions of one template (a template's first version is its own family),
//     `version` numbers them 1, 2, 3…; editing a published version copies it into a new Draft version, and
//     publishing that draft sets `superseded_at` on the version it replaces. At most one Draft and one current
//     (not superseded) Published version per family;
//   - `archived_at`: the template (every version of the family) is archived — no longer listed, served or
//     sent; envelopes created from it keep it;
//   - `owner_user_id`, `team_id`: who created the template and their team at the time (null for templates made
//     before, by the operator CLI, or for one-off templates); a deleted user or team leaves them null;
//   - `updated_at`: the last change of the version; `pages`: the size of each page as displayed (points, the
//     space fields are placed in), measured when the PDF was inspected, so the builder and every save check
//     fields against them without reading the PDF again (null for templates made before: measured on first use);
//   - `template_role.default_recipient_type` and `signing_order`: the recipient type and the place in the signing
//     order a sender starts from for the role (Signer, and the role's position, for existing roles);
//   - `template_field.properties`: a field's type-specific properties (the text of Read-only text, a date's
//     format, the checks of Email, Phone and ID number, the limits of the uploads), null for none.
import { Migration } from '@mikro-orm/migrations';

// Written out, not imported: a shipped migration must never change.
const RECIPIENT_TYPES = ['Signer', 'FormFiller', 'Approver', 'Viewer', 'Cc'];

export class Migration0020TemplateVersions extends Migration {
  override name = '0020-template-versions';

  override up(): void {
    this.addSql('alter table template add column family_id uuid');
    this.addSql('update template set family_id = id');
    this.addSql('alter table template alter column family_id set not null');
    this.addSql('alter table template add column version integer not null default 1 check (version >= 1)');
    this.addSql('alter table template add column superseded_at timestamptz');
    this.addSql('alter table template add column archived_at timestamptz');
    this.addSql(
      'alter table template add column owner_user_id uuid references app_user (id) on delete set null deferrable initially deferred',
    );
    this.addSql(
      'alter table template add column team_id uuid references team (id) on delete set null deferrable initially deferred',
    );
    this.addSql('alter table template add column updated_at timestamptz not null default now()');
    this.addSql('update template set updated_at = coalesce(published_at, created_at)');
    this.addSql('alter table template add column pages jsonb');
    this.addSql('create unique index template_family_version_idx on template (family_id, version)');
    this.addSql(
      "create unique index template_family_draft_idx on template (family_id) where status = 'Draft'",
    );
    this.addSql(
      "create unique index template_family_published_idx on template (family_id) where status = 'Published' and superseded_at is null",
    );
    this.addSql('create index template_owner_idx on template (owner_user_id)');
    this.addSql('create index template_team_idx on template (team_id)');

    this.addSql(
      `alter table template_role add column default_recipient_type text not null default 'Signer' check (default_recipient_type in (${RECIPIENT_TYPES.map((type) => `'${type}'`).join(', ')}))`,
    );
    this.addSql('alter table template_role add column signing_order integer');
    this.addSql('update template_role set signing_order = position + 1');
    this.addSql('alter table template_role alter column signing_order set not null');
    this.addSql(
      'alter table template_role add constraint template_role_signing_order_check check (signing_order >= 1)',
    );

    this.addSql('alter table template_field add column properties jsonb');
  }
}
