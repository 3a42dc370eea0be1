// The documents benchmarks' data (bench/documents.ts, bench/reports.ts): one organization with an owner, five
// senders in two teams (Sales: Avi, Bella, Carmel; Support: Dan, Eden) and the public API (no sending user), four
// templates, and `envelopes` envelopes created over the last year in every status of the documents tabs
// (archived and deleted ones too), two or three recipients each (names and addresses from pools, some of them
// the organization's own users, some in capitals), titles (a kind of document and a company), external
// references; and a second, small organization sharing the recipients' address space, so that the tenant filter
// and the recipients' search across organizations are real. Seeded with SQL (`insert … select …
// generate_series`, in chunks, with progress lines) into the tables of the migrations, then VACUUM ANALYZE.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { AppUser, Team } from '../db/entities/index.ts';
import { OPEN_STATUSES } from '../domain/document-lifecycle.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../services/templates/create-template.ts';
import { createFileObjects } from '../storage/create-object-store.ts';
import { createOrganizationWithTemplate } from '../test/support/context.ts';
import { type SignedInUser, signedInUser } from '../test/support/signed-in-user.ts';
import { startBenchApi } from './support.ts';

/** Envelopes per insert statement (their recipients follow in one more). */
const CHUNK = 10_000;
export const thousands = (n: number) => n.toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------------------
// What the envelopes are made of.

/** Each status's share of the envelopes (the cumulative shares pick one per envelope). */
const STATUS_SHARES: [string, number][] = [
  ['Completed', 0.455],
  ['Draft', 0.08],
  ['Sent', 0.04],
  ['Opened', 0.03],
  ['InProgress', 0.03],
  ['WaitingForNextSigner', 0.04],
  ['DeliveryFailed', 0.01],
  ['ProcessingFinalPdf', 0.002],
  ['FinalPdfFailed', 0.003],
  ['Declined', 0.05],
  ['Cancelled', 0.05],
  ['Expired', 0.06],
  ['Archived', 0.12],
  ['Deleted', 0.03],
];
/** Signing or rendering: created within the last 12 days (deadlines of 14 days and more have not passed). */
const IN_FLIGHT = OPEN_STATUSES;
const KINDS = [
  'Services agreement',
  'Mutual NDA',
  'Residential lease',
  'Commercial lease',
  'Equipment lease',
  'Purchase order',
  'Employment offer',
  'Consulting agreement',
  'Sales quote',
  'Consent form',
  'Loan agreement',
  'Supplier contract',
];
const COMPANIES = [
  'Oakridge Properties',
  'Blue Harbor Logistics',
  'Cedar & Finch',
  'Northwind Traders',
  'Helios Solar',
  'Granite Peak Capital',
  'Silverline Media',
  'Red Dune Foods',
  'Aurora Health',
  'Keystone Builders',
  'Lumen Analytics',
  'Maple Street Dental',
  'Orchid Hotels',
  'Pioneer Freight',
  'Quartz Labs',
  'Riverbend Farms',
  'Summit Legal',
  'Tidewater Marine',
  'Urban Nest Realty',
  'Vantage Security',
  'Willow Creek School',
  'Yellowstone Outfitters',
  'Zenith Aerospace',
  'Atlas Printing',
  'Beacon Insurance',
  'Crescent Bakery',
  'Delta Dynamics',
  'Evergreen Clinics',
  'Falcon Motors',
  'Golden Gate Studios',
  'Harbor Light Cafe',
  'Ironwood Furniture',
  'Jasper Consulting',
  'Kestrel Robotics',
  'Lighthouse Charity',
  'Meridian Bank',
  'Nimbus Cloud',
  'Opal Jewelers',
  'Prairie Wind Energy',
  'Quayside Apartments',
  'Rosewood Events',
  'Sapphire Travel',
  'Timberline Construction',
  'Unity Credit Union',
  'Vertex Pharma',
  'Westgate Mall',
  'Xylo Music',
  'Yarrow Gardens',
  'Zephyr Airlines',
  'Harmony Day Care',
];
const FIRST_NAMES = [
  'Dana',
  'Sam',
  'Noa',
  'Yossi',
  'Maya',
  'Omer',
  'Tamar',
  'Eitan',
  'Shira',
  'Amit',
  'Yael',
  'Ron',
  'Lior',
  'Gal',
  'Roni',
  'Itai',
  'Michal',
  'Avi',
  'Hila',
  'Nadav',
  'Emma',
  'Liam',
  'Olivia',
  'Noah',
  'Sofia',
  'Lucas',
  'Chloe',
  'Mateo',
  'Aisha',
  'Omar',
  'Fatima',
  'Yusuf',
  'Hannah',
  'Jonas',
  'Clara',
  'Felix',
  'Ines',
  'Hugo',
  'Lea',
  'Marco',
];
const LAST_NAMES = [
  'Levi',
  'Cohen',
  'Mizrahi',
  'Peretz',
  'Biton',
  'Dahan',
  'Avraham',
  'Friedman',
  'Azoulay',
  'Katz',
  'Shapiro',
  'Goldberg',
  'Rosen',
  'Ben-David',
  'Haddad',
  'Nasser',
  'Khoury',
  'Smith',
  'Johnson',
  'Garcia',
  'Martinez',
  'Brown',
  'Wilson',
  'Taylor',
  'Anderson',
  'Thomas',
  'Moreau',
  'Dubois',
  'Rossi',
  'Bianchi',
  'Novak',
  'Horvat',
  'Schmidt',
  'Weber',
  'Jansen',
  'Silva',
  'Santos',
  'Okafor',
  'Mensah',
  'Tanaka',
];
export const DOMAINS = [
  'gmail.example',
  'outlook.example',
  'northwind.example',
  'oakridge.example',
  'blueharbor.example',
  'helios.example',
  'summitlegal.example',
  'meridianbank.example',
  'aurorahealth.example',
  'keystone.example',
  'lumen.example',
  'pioneer.example',
  'quartzlabs.example',
  'tidewater.example',
  'vantage.example',
  'zenith.example',
  'beacon.example',
  'evergreen.example',
  'falcon.example',
  'nimbus.example',
];
/** Share of envelopes whose recipient in turn is one of the organization's own users. */
const INSIDER_RATE = 0.03;

interface SeedPlan {
  label: string;
  organizationId: string;
  count: number;
  /** Who creates the envelopes, with their share; a null user is the public API. */
  senders: { userId: string | null; teamId: string | null; share: number }[];
  templates: { id: string; clientRoleId: string; providerRoleId: string }[];
  /** People with a user in the organization who also sign some of its envelopes (their "action needed"). */
  insiders: { fullName: string; email: string }[];
  /** The prefix of the references of envelopes created in the app (the public API's are `ERP-…`). */
  referencePrefix: string;
}

/** `[0, a, a+b, …]`: the lower bounds `width_bucket` picks an index with, from shares that add up to 1. */
function bounds(shares: number[]): number[] {
  const lower = [0];
  for (const share of shares.slice(0, -1)) lower.push((lower.at(-1) as number) + share);
  return lower;
}

/**
 * The envelopes of one organization, decided first in a temporary table (status, sender, template, dates…:
 * `random()` per row, after `setseed`, so a run is repeatable), then inserted CHUNK at a time with their
 * recipients.
 */
async function seed(
  db: pg.Client,
  plan: SeedPlan,
  say: (line: string) => void,
): Promise<{ envelopes: number; recipients: number }> {
  const started = performance.now();
  await db.query('select setseed(0.42)');
  await db.query('drop table if exists seed_envelope');
  await db.query(
    `create temp table seed_envelope as
     with raw as materialized (
       select i, random() as r_status, random() as r_previous, random() as r_sender, random() as r_template,
              random() as r_kind, random() as r_company, random() as r_workflow, random() as r_recipients,
              random() as r_reference, random() as r_age, random() as r_sent, random() as r_done,
              random() as r_expiry
       from generate_series(1, $1::int) as i
     ), picked as (
       select raw.*, ($2::text[])[width_bucket(r_status, $3::float8[])] as status,
              width_bucket(r_sender, $4::float8[]) as sender
       from raw
     ), closed as (
       -- An archived or deleted envelope keeps the status it had (mostly a completed one) as previous_status.
       select picked.*,
              case when status in ('Archived', 'Deleted') then
                case when r_previous < 0.85 then 'Completed' when r_previous < 0.95 then 'Cancelled'
                     else 'Expired' end
              end as previous_status
       from picked
     ), dated as (
       select closed.*, coalesce(previous_status, status) as phase,
              now() - case
                when status = any($5::text[]) then r_age * 12
                when coalesce(previous_status, status) = 'Expired' then 61 + r_age * 300
                else r_age * 365
              end * interval '1 day' as created_at
       from closed
     )
     select i, gen_random_uuid() as id, status, previous_status, phase, sender,
            1 + floor(r_template * $6::int)::int as template,
            1 + floor(r_kind * $7::int)::int as kind,
            1 + floor(r_company * $8::int)::int as company,
            case when r_workflow < 0.7 then 'Sequential' when r_workflow < 0.95 then 'Parallel'
                 else 'GroupedRounds' end as workflow_type,
            case when r_recipients < 0.8 then 2 else 3 end as recipient_count,
            r_reference < 0.4 as has_reference,
            created_at,
            created_at + case when r_expiry < 0.7 then 30 when r_expiry < 0.9 then 14 else 60 end
              * interval '1 day' as expires_at,
            case when phase <> 'Draft' then created_at + r_sent * interval '2 hours' end as sent_at,
            case when phase = 'Completed' then
              least(now(), created_at + (0.1 + r_done * 10) * interval '1 day') end as completed_at
     from dated`,
    [
      plan.count,
      STATUS_SHARES.map(([status]) => status),
      bounds(STATUS_SHARES.map(([, share]) => share)),
      bounds(plan.senders.map((sender) => sender.share)),
      IN_FLIGHT,
      plan.templates.length,
      KINDS.length,
      COMPANIES.length,
    ],
  );
  const users = plan.senders.map((sender) => sender.userId);
  let recipients = 0;
  for (let from = 1; from <= plan.count; from += CHUNK) {
    const to = Math.min(plan.count, from + CHUNK - 1);
    await db.query(
      `insert into envelope (id, organization_id, template_id, created_by_user_id, team_id, title, workflow_type,
         status, previous_status, expires_at, external_reference, external_system, workflow_id, sent_at,
         completed_at, archived_at, deleted_at, created_at, updated_at)
       select s.id, $1::uuid, ($2::uuid[])[s.template], ($3::uuid[])[s.sender], ($4::uuid[])[s.sender],
              ($5::text[])[s.kind] || ' — ' || ($6::text[])[s.company],
              s.workflow_type, s.status, s.previous_status, s.expires_at,
              case when ($3::uuid[])[s.sender] is null then 'ERP-' || lpad(s.i::text, 7, '0')
                   when s.has_reference then $7::text || '-' || (100000 + s.i) end,
              case when ($3::uuid[])[s.sender] is null then 'erp' end,
              case when s.sent_at is not null then 'envelope/' || s.id end,
              s.sent_at, s.completed_at,
              case when s.status = 'Archived' then
                least(now(), coalesce(s.completed_at, s.sent_at, s.created_at) + interval '20 days') end,
              case when s.status = 'Deleted' then
                least(now(), coalesce(s.completed_at, s.sent_at, s.created_at) + interval '20 days') end,
              s.created_at, greatest(s.created_at, s.sent_at, s.completed_at)
       from seed_envelope s where s.i between $8::int and $9::int`,
      [
        plan.organizationId,
        plan.templates.map((template) => template.id),
        users,
        plan.senders.map((sender) => sender.teamId),
        KINDS,
        COMPANIES,
        plan.referencePrefix,
        from,
        to,
      ],
    );
    // The recipient in turn (the first; the second while the envelope waits for its next signer) is now and
    // then one of the organization's users, a quarter of those times with the address in capitals. The third
    // recipient, when there is one, is a Cc of the Client role.
    const inserted = await db.query(
      `insert into recipient (id, envelope_id, role_id, role_name, full_name, email, signing_order, position,
         delivery_channel, authentication_method, type, required, status, completed_at, created_at, updated_at)
       select gen_random_uuid(), y.id,
              case when y.j = 2 then ($2::uuid[])[y.template] else ($1::uuid[])[y.template] end,
              case when y.j = 2 then 'Provider' else 'Client' end,
              case when y.insider then ($6::text[])[y.who] else ($3::text[])[y.f] || ' ' || ($4::text[])[y.l] end,
              case when y.insider and y.r_case < 0.25 then upper(($7::text[])[y.who])
                   when y.insider then ($7::text[])[y.who]
                   else lower(replace(($3::text[])[y.f] || '.' || ($4::text[])[y.l], '-', '')) || '@'
                        || ($5::text[])[y.d] end,
              case when y.workflow_type = 'Parallel' or y.j = 3 then 1 else y.j end,
              y.j - 1,
              case when y.insider then 'Email'
                   when ($10::uuid[])[y.sender] is null and y.r_channel < 0.3 then 'Api'
                   when y.r_channel < 0.08 then 'ManualLink' else 'Email' end,
              'SecureLink',
              case when y.j = 3 then 'Cc' else 'Signer' end,
              y.j < 3,
              y.recipient_status,
              case when y.recipient_status = 'Completed' then
                coalesce(y.completed_at, y.sent_at + interval '1 day') end,
              y.created_at,
              coalesce(y.completed_at, y.sent_at, y.created_at)
       from (
         select x.*,
                x.j = case when x.phase = 'WaitingForNextSigner' then 2 else 1 end and x.r_insider < $8::float8 as insider,
                case
                  when x.j = 3 or x.phase = 'Draft' then 'Pending'
                  when x.phase in ('Completed', 'ProcessingFinalPdf', 'FinalPdfFailed') then 'Completed'
                  when x.phase = 'Declined' then case when x.j = 1 then 'Declined' else 'Cancelled' end
                  when x.phase in ('Cancelled', 'Expired') then x.phase
                  when x.phase = 'WaitingForNextSigner' then
                    case when x.j = 1 then 'Completed' else 'InvitationSent' end
                  when x.workflow_type <> 'Parallel' and x.j = 2 then 'WaitingForTurn'
                  when x.phase = 'Sent' then 'InvitationSent'
                  when x.phase = 'Opened' then case when x.r_step < 0.5 then 'LinkOpened' else 'Viewed' end
                  when x.phase = 'InProgress' then 'InProgress'
                  else 'DeliveryFailed'
                end as recipient_status
         from (
           select s.*, j, 1 + floor(random() * $11::int)::int as f, 1 + floor(random() * $12::int)::int as l,
                  1 + floor(random() * $13::int)::int as d, 1 + floor(random() * $14::int)::int as who,
                  random() as r_insider, random() as r_case, random() as r_channel, random() as r_step
           from seed_envelope s cross join lateral generate_series(1, s.recipient_count) as j
           where s.i between $9::int and $15::int
         ) as x
       ) as y`,
      [
        plan.templates.map((template) => template.clientRoleId),
        plan.templates.map((template) => template.providerRoleId),
        FIRST_NAMES,
        LAST_NAMES,
        DOMAINS,
        plan.insiders.map((insider) => insider.fullName),
        plan.insiders.map((insider) => insider.email),
        plan.insiders.length > 0 ? INSIDER_RATE : 0,
        from,
        users,
        FIRST_NAMES.length,
        LAST_NAMES.length,
        DOMAINS.length,
        Math.max(1, plan.insiders.length),
        to,
      ],
    );
    recipients += inserted.rowCount ?? 0;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    say(
      `${plan.label}: ${thousands(to)} / ${thousands(plan.count)} envelopes, ${thousands(recipients)} recipients (${seconds} s)`,
    );
  }
  await db.query('drop table seed_envelope');
  return { envelopes: plan.count, recipients };
}

export interface SeedOptions {
  envelopes: number;
  otherEnvelopes: number;
  say: (line: string) => void;
}

/** Seeds the organization startBenchApi made (and a second one) and says what it made. */
export async function seedDocumentsOrganization(
  bench: Awaited<ReturnType<typeof startBenchApi>>,
  db: pg.Client,
  { envelopes: ENVELOPES, otherEnvelopes: OTHER_ENVELOPES, say }: SeedOptions,
) {
  const { infrastructure, organization } = bench;
  const em = infrastructure.orm.em.fork();
  const harness = { ctx: { orm: infrastructure.orm } };

  // The organization of the benchmark: the one startBenchApi made (a published template, API enabled).
  const organizationId = organization.id;
  const user = async (
    role: string,
    fullName: string,
    email: string,
    teamId: string | null,
    org = organizationId,
  ) => {
    const made = await signedInUser(harness, { role, organizationId: org, fullName, email });
    if (teamId) await em.fork().nativeUpdate(AppUser, { id: made.user.id }, { teamId });
    return made;
  };
  const sales = em.create(Team, { id: randomUUID(), organizationId, name: 'Sales' });
  const support = em.create(Team, { id: randomUUID(), organizationId, name: 'Support' });
  await em.flush();
  const owner = await user('owner', 'Olivia Owner', 'olivia.owner@bench-org.example', null);
  const senders: [SignedInUser, string, number][] = [
    [await user('sender', 'Avi Sender', 'avi.sender@bench-org.example', sales.id), sales.id, 0.22],
    [await user('sender', 'Bella Sender', 'bella.sender@bench-org.example', sales.id), sales.id, 0.2],
    [await user('sender', 'Carmel Sender', 'carmel.sender@bench-org.example', sales.id), sales.id, 0.15],
    [await user('sender', 'Dan Sender', 'dan.sender@bench-org.example', support.id), support.id, 0.16],
    [await user('sender', 'Eden Sender', 'eden.sender@bench-org.example', support.id), support.id, 0.12],
  ];
  const bella = senders[1]?.[0] as SignedInUser;
  const pdf = await buildDemoPdf();
  const templateIds = [bench.template.id];
  for (const name of ['Mutual NDA', 'Residential lease', 'Employment offer']) {
    const made = await createTemplate(
      { em: em.fork(), files: createFileObjects({ kind: 'postgres' }, em) },
      {
        organizationId,
        pdf,
        filename: `${name}.pdf`,
        definition: { ...DEMO_TEMPLATE_DEFINITION, name },
        publish: true,
      },
    );
    templateIds.push(made.id);
  }
  const rolesOf = async (ids: string[]) => {
    const { rows } = await db.query(
      'select template_id, name, id from template_role where template_id = any($1::uuid[])',
      [ids],
    );
    const roles = rows as { template_id: string; name: string; id: string }[];
    const role = (template: string, name: string) =>
      roles.find((row) => row.template_id === template && row.name === name)?.id as string;
    return ids.map((id) => ({ id, clientRoleId: role(id, 'Client'), providerRoleId: role(id, 'Provider') }));
  };

  // The second organization: its own owner, its template, the public API; the first one's owner signs some.
  const other = await createOrganizationWithTemplate({
    em: em.fork(),
    files: createFileObjects({ kind: 'postgres' }, em),
  });
  const otherOwner = await user('owner', 'Oren Other', 'oren@other-org.example', null, other.organization.id);

  const seedStarted = performance.now();
  const main = await seed(
    db,
    {
      label: 'organization',
      organizationId,
      count: ENVELOPES,
      senders: [
        { userId: null, teamId: null, share: 0.15 },
        ...senders.map(([sender, teamId, share]) => ({ userId: sender.user.id, teamId, share })),
      ],
      templates: await rolesOf(templateIds),
      insiders: [owner, bella, senders[3]?.[0] as SignedInUser].map((insider) => ({
        fullName: insider.user.fullName,
        email: insider.email,
      })),
      referencePrefix: 'PO',
    },
    say,
  );
  const second = await seed(
    db,
    {
      label: 'second organization',
      organizationId: other.organization.id,
      count: OTHER_ENVELOPES,
      senders: [
        { userId: null, teamId: null, share: 0.4 },
        { userId: otherOwner.user.id, teamId: null, share: 0.6 },
      ],
      templates: await rolesOf([other.template.id]),
      insiders: [{ fullName: owner.user.fullName, email: owner.email }],
      referencePrefix: 'INV',
    },
    say,
  );
  say('VACUUM ANALYZE envelope, recipient…');
  await db.query('vacuum (analyze) envelope, recipient');
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  say(
    `seeded ${thousands(main.envelopes + second.envelopes)} envelopes and ` +
      `${thousands(main.recipients + second.recipients)} recipients in ${seedSeconds.toFixed(1)} s`,
  );
  return { organizationId, owner, senders, bella, templateIds, other, otherOwner, main, second, seedSeconds };
}

/**
 * The Documents benchmarks' harness: starts the bench API, connects a client to its database, seeds the
 * organization, runs `measure` and closes both, whatever happened.
 */
export async function withDocumentsBench(
  options: SeedOptions,
  measure: (run: {
    bench: Awaited<ReturnType<typeof startBenchApi>>;
    db: pg.Client;
    seeded: Awaited<ReturnType<typeof seedDocumentsOrganization>>;
  }) => Promise<void>,
): Promise<void> {
  const bench = await startBenchApi(options.say);
  const db = new pg.Client({ connectionString: bench.infrastructure.databaseUrl });
  try {
    await db.connect();
    const seeded = await seedDocumentsOrganization(bench, db, options);
    await measure({ bench, db, seeded });
  } finally {
    await db.end().catch(() => {});
    await bench.close();
  }
}
