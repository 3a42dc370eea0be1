// The first schema: plans, organizations, OAuth clients, files, templates, envelopes, recipients, audit events.
import { Migration } from '@mikro-orm/migrations';

// The value lists are written out here, not imported: a shipped migration must never change.
const ENVELOPE_STATUSES = [
  'Draft',
  'ReadyToSend',
  'Sending',
  'Sent',
  'Opened',
  'InProgress',
  'WaitingForNextSigner',
  'ProcessingFinalPdf',
  'Completed',
  'DeliveryFailed',
  'FinalPdfFailed',
  'Declined',
  'Cancelled',
  'Expired',
  'Archived',
  'Deleted',
];
const RECIPIENT_STATUSES = [
  'Pending',
  'WaitingForTurn',
  'InvitationSent',
  'DeliveryFailed',
  'LinkOpened',
  'AuthenticationPending',
  'AuthenticationVerified',
  'AuthenticationFailed',
  'Viewed',
  'InProgress',
  'Completed',
  'Declined',
  'Cancelled',
  'Expired',
];
const WORKFLOW_TYPES = ['Sequential', 'Parallel', 'GroupedRounds'];
const RECIPIENT_TYPES = ['Signer', 'FormFiller', 'Approver', 'Viewer', 'Cc'];
const DELIVERY_CHANNELS = ['Email', 'Sms', 'WhatsApp', 'ManualLink', 'Api'];
const AUTHENTICATION_METHODS = ['SecureLink', 'OtpSms', 'OtpWhatsApp'];
const FIELD_TYPES = [
  'Signature',
  'Initials',
  'Full name',
  'Text',
  'Long text',
  'Date',
  'Email',
  'Phone',
  'ID number',
  'Checkbox',
  'Radio',
  'Dropdown',
  'Read-only text',
  'File upload',
  'Image upload',
  'Company stamp',
];

const oneOf = (column: string, values: readonly string[]) =>
  `check (${column} in (${values.map((v) => `'${v}'`).join(', ')}))`;

// Foreign keys are checked at commit: entities keep plain id columns, so the unit of work may insert
// rows of one transaction in any order.
export class Migration0001Initial extends Migration {
  override name = '0001-initial';

  override up(): void {
    this.addSql(`
      create table plan (
        name text primary key,
        api_access boolean not null,
        webhook_access boolean not null,
        monthly_document_limit integer,
        user_limit integer,
        team_limit integer,
        sms_credits_included integer not null default 0,
        rate_limit_per_minute integer,
        upload_rate_limit_per_minute integer,
        support_level text not null,
        sort_order integer not null
      )`);
    // Plans are reference data: every environment needs them, so they ship with the schema.
    // A null limit means unlimited; a null rate limit means "configured per organization" (Enterprise).
    this.addSql(`
      insert into plan (name, api_access, webhook_access, monthly_document_limit, user_limit, team_limit,
                        sms_credits_included, rate_limit_per_minute, upload_rate_limit_per_minute, support_level, sort_order)
      values ('Starter',      false, false,   25,    3,    1,    0, null, null, 'Community', 0),
             ('Professional', true,  true,   200,   10,    3,  100,   60,   10, 'Standard',  1),
             ('Business',     true,  true,  1000,   50,   20,  500,  180,   30, 'Priority',  2),
             ('Premium',      true,  true,  5000,  250,  100, 2000,  600,  100, 'Premium',   3),
             ('Enterprise',   true,  true,  null, null, null, 5000, null, null, 'Dedicated', 4)`);

    this.addSql(`
      create table organization (
        id uuid primary key,
        name text not null check (length(name) between 1 and 200),
        plan_name text not null references plan (name) deferrable initially deferred,
        api_enabled boolean not null default false,
        default_language text not null default 'en',
        rate_limit_per_minute integer,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);

    this.addSql(`
      create table oauth_client (
        id uuid primary key,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        name text not null,
        client_id text not null unique,
        scopes text[] not null,
        ip_allowlist text[] not null default '{}',
        last_used_at timestamptz,
        request_count bigint not null default 0,
        error_count bigint not null default 0,
        created_at timestamptz not null default now()
      )`);
    this.addSql('create index oauth_client_organization_idx on oauth_client (organization_id)');
    this.addSql(`
      create table oauth_client_secret (
        id uuid primary key,
        oauth_client_id uuid not null references oauth_client (id) on delete cascade deferrable initially deferred,
        secret_hash text not null,
        hint text not null,
        expires_at timestamptz not null,
        created_at timestamptz not null default now(),
        deleted_at timestamptz
      )`);
    this.addSql('create index oauth_client_secret_client_idx on oauth_client_secret (oauth_client_id)');

    this.addSql(`
      create table stored_file (
        id uuid primary key,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        filename text not null,
        content_type text not null,
        size_bytes integer not null,
        sha256 text not null,
        content bytea not null,
        created_at timestamptz not null default now()
      )`);
    this.addSql('create index stored_file_organization_idx on stored_file (organization_id)');

    this.addSql(`
      create table template (
        id uuid primary key,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        name text not null,
        status text not null ${oneOf('status', ['Draft', 'Published'])},
        file_id uuid not null references stored_file (id) deferrable initially deferred,
        page_count integer not null,
        created_at timestamptz not null default now(),
        published_at timestamptz
      )`);
    this.addSql('create index template_organization_idx on template (organization_id)');
    this.addSql(`
      create table template_role (
        id uuid primary key,
        template_id uuid not null references template (id) on delete cascade deferrable initially deferred,
        name text not null,
        required boolean not null default true,
        position integer not null,
        unique (template_id, name)
      )`);
    this.addSql(`
      create table template_field (
        id uuid primary key,
        template_id uuid not null references template (id) on delete cascade deferrable initially deferred,
        role_id uuid not null references template_role (id) on delete cascade deferrable initially deferred,
        type text not null ${oneOf('type', FIELD_TYPES)},
        label text not null,
        page integer not null check (page >= 1),
        x double precision not null,
        y double precision not null,
        width double precision not null,
        height double precision not null,
        required boolean not null default false,
        options jsonb,
        position integer not null
      )`);
    this.addSql('create index template_field_template_idx on template_field (template_id)');

    this.addSql(`
      create table envelope (
        id uuid primary key,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        template_id uuid references template (id) deferrable initially deferred,
        title text not null,
        workflow_type text not null ${oneOf('workflow_type', WORKFLOW_TYPES)},
        status text not null ${oneOf('status', ENVELOPE_STATUSES)},
        expires_at timestamptz,
        external_reference text,
        external_system text,
        external_metadata_json text,
        final_pdf_file_id uuid references stored_file (id) deferrable initially deferred,
        audit_trail_file_id uuid references stored_file (id) deferrable initially deferred,
        workflow_id text,
        projected_sequence integer not null default 0,
        sent_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql('create index envelope_organization_status_idx on envelope (organization_id, status)');
    this.addSql(
      'create index envelope_external_reference_idx on envelope (organization_id, external_reference)',
    );
    this.addSql(`
      create table recipient (
        id uuid primary key,
        envelope_id uuid not null references envelope (id) on delete cascade deferrable initially deferred,
        role_id uuid references template_role (id) deferrable initially deferred,
        role_name text not null,
        full_name text not null,
        email text,
        phone text,
        signing_order integer not null check (signing_order >= 1),
        delivery_channel text not null ${oneOf('delivery_channel', DELIVERY_CHANNELS)},
        authentication_method text not null ${oneOf('authentication_method', AUTHENTICATION_METHODS)},
        type text not null ${oneOf('type', RECIPIENT_TYPES)},
        language text,
        required boolean not null,
        status text not null ${oneOf('status', RECIPIENT_STATUSES)},
        completed_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql('create index recipient_envelope_idx on recipient (envelope_id)');
    this.addSql(`
      create table audit_event (
        id uuid primary key,
        envelope_id uuid not null references envelope (id) on delete cascade deferrable initially deferred,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        sequence integer not null,
        type text not null,
        recipient_id uuid references recipient (id) deferrable initially deferred,
        data jsonb not null default '{}',
        occurred_at timestamptz not null,
        recorded_at timestamptz not null default now(),
        unique (envelope_id, sequence)
      )`);
  }
}
