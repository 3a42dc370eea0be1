#!/usr/bin/env node
// `sigil`: the operator CLI (`npx sigil …`). Every command calls the same services the API uses, prints a
// readable result (or `--json`), and turns failures into one clear message and a non-zero exit code.
import { open, readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Config, ConfigError, loadConfig } from '../../config/config.ts';
import { redactUrl } from '../../config/logger.ts';
import type { Orm } from '../../db/orm.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { DataContext, FilesContext, ServiceContext } from '../../services/context.ts';
import { AppError, InvalidRequest, NotFound } from '../../services/errors.ts';
import type { FileObjects } from '../../storage/file-objects.ts';
import type { TemporalClientHandle } from '../../temporal/connection.ts';
import {
  ENVELOPE_SETTINGS_CLI_OPTIONS,
  ENVELOPE_SETTINGS_CLI_USAGE,
  ENVELOPE_SETTINGS_COMMANDS,
} from './envelope-settings-commands.ts';
import {
  PLATFORM_ADMIN_CLI_OPTIONS,
  PLATFORM_ADMIN_CLI_USAGE,
  PLATFORM_ADMIN_COMMANDS,
} from './platform-admin-commands.ts';
import { STORAGE_CLI_OPTIONS, STORAGE_CLI_USAGE, STORAGE_COMMANDS } from './storage-commands.ts';
import { WEBHOOK_CLI_OPTIONS, WEBHOOK_CLI_USAGE, WEBHOOK_COMMANDS } from './webhook-commands.ts';

const USAGE = `Usage: sigil <command> [options] [--json]

  org create      --name NAME --plan Professional|Business|Premium|Enterprise|Starter [--api-enabled]
  client create   --org ORG_ID --name NAME --scopes "scope scope ..." [--allowlist "cidr,cidr"]
  client list     --org ORG_ID
  client update   --org ORG_ID --client CLIENT_UUID_OR_CLIENT_ID [--name NAME] [--scopes "scope ..."]
                  [--allowlist "cidr,cidr"]   (what is not given stays; --allowlist "" accepts any source)
  client delete   --org ORG_ID --client CLIENT_UUID_OR_CLIENT_ID
  client rotate-secret --org ORG_ID --client CLIENT_UUID_OR_CLIENT_ID
  client delete-secret --org ORG_ID --client CLIENT_UUID_OR_CLIENT_ID --secret SECRET_ID
  template create --org ORG_ID --pdf FILE.pdf --definition FILE.json [--publish]
  envelope send   --org ORG_ID --template TEMPLATE_ID --recipients FILE.json
                  [--title TITLE] [--workflow-type Sequential|Parallel|GroupedRounds]
                  [--expires-at ISO_DATE_TIME] [--external-reference REF]
  envelope retry-final-pdf --org ORG_ID --envelope ENVELOPE_ID
                  renders the final PDF and audit trail again after FinalPdfFailed
  envelope links  --org ORG_ID --envelope ENVELOPE_ID
                  issues a new signing link for each acting recipient (earlier links stop working)
  envelope stuck  [--org ORG_ID] [--older-than SECONDS]
                  envelopes whose projection to PostgreSQL is parked or behind (default: 60 s)
  envelope resume-projection --org ORG_ID --envelope ENVELOPE_ID [--sanitize]
                  projects a parked envelope's queued transitions again once the cause is repaired
  envelope verify-audit --org ORG_ID --envelope ENVELOPE_ID
                  recomputes the hash chain through the envelope's audit events (exit 1 when broken)
${ENVELOPE_SETTINGS_CLI_USAGE}${WEBHOOK_CLI_USAGE}${PLATFORM_ADMIN_CLI_USAGE}${STORAGE_CLI_USAGE}
Connects to DATABASE_URL (default: the embedded PostgreSQL of \`npm start\`) and, for the envelope commands
and webhook test and replay, TEMPORAL_ADDRESS (default: the dev server of \`npm start\`). --json prints
machine-readable output.
`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  plan: { type: 'string' },
  'api-enabled': { type: 'boolean' },
  org: { type: 'string' },
  scopes: { type: 'string' },
  allowlist: { type: 'string' },
  client: { type: 'string' },
  secret: { type: 'string' },
  pdf: { type: 'string' },
  definition: { type: 'string' },
  publish: { type: 'boolean' },
  template: { type: 'string' },
  recipients: { type: 'string' },
  title: { type: 'string' },
  'workflow-type': { type: 'string' },
  'expires-at': { type: 'string' },
  'external-reference': { type: 'string' },
  envelope: { type: 'string' },
  'older-than': { type: 'string' },
  sanitize: { type: 'boolean' },
  ...WEBHOOK_CLI_OPTIONS,
  ...PLATFORM_ADMIN_CLI_OPTIONS,
  ...ENVELOPE_SETTINGS_CLI_OPTIONS,
  ...STORAGE_CLI_OPTIONS,
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** What a command works with: one unit of work per command (the same `em` however often it is asked for). */
export interface Runtime {
  config: Config;
  data(): Promise<DataContext & FilesContext & { config: Config }>;
  services(): Promise<ServiceContext & { config: Config }>;
}

type Output = { json: unknown; text: string };

const COMMANDS: Record<string, (values: Values, runtime: Runtime) => Promise<Output>> = {
  'org create': async (values, runtime) => {
    const organization = await (
      await import('../../services/organizations/create-organization.ts')
    ).createOrganization(await runtime.data(), {
      name: required(values, 'name'),
      plan: required(values, 'plan') as never,
      apiEnabled: values['api-enabled'] ?? false,
    });
    return {
      json: {
        id: organization.id,
        name: organization.name,
        plan: organization.planName,
        apiEnabled: organization.apiEnabled,
      },
      text: `organization ${organization.id} created (${organization.name}, plan ${organization.planName}, API ${organization.apiEnabled ? 'enabled' : 'disabled'})`,
    };
  },

  'client create': async (values, runtime) => {
    const client = await (
      await import('../../services/oauth-clients/create-oauth-client.ts')
    ).createOAuthClient(await runtime.data(), {
      organizationId: required(values, 'org'),
      name: required(values, 'name'),
      scopes: required(values, 'scopes').split(/\s+/).filter(Boolean) as never,
      ipAllowlist: (values.allowlist ?? '').split(/[,\n]/).filter((entry) => entry.trim() !== ''),
    });
    return {
      json: {
        id: client.id,
        client_id: client.clientId,
        client_secret: client.clientSecret,
        secret_expires_at: client.secretExpiresAt.toISOString(),
        scopes: client.scopes,
        ip_allowlist: client.ipAllowlist,
      },
      text: [
        `OAuth client ${client.id} created for organization ${client.organizationId}`,
        `  client_id      ${client.clientId}`,
        `  client_secret  ${client.clientSecret}`,
        `  expires        ${client.secretExpiresAt.toISOString()}`,
        `  scopes         ${client.scopes.join(' ')}`,
        `  IP allowlist   ${client.ipAllowlist.length > 0 ? client.ipAllowlist.join(', ') : '(any source)'}`,
        'The secret is shown only now; store it safely.',
      ].join('\n'),
    };
  },

  'client list': async (values, runtime) => {
    const clients = await (
      await import('../../services/oauth-clients/list-oauth-clients.ts')
    ).listOAuthClients(await runtime.data(), required(values, 'org'));
    return {
      json: clients.map((client) => ({
        id: client.id,
        client_id: client.clientId,
        name: client.name,
        scopes: client.scopes,
        ip_allowlist: client.ipAllowlist,
        last_used_at: client.lastUsedAt?.toISOString() ?? null,
        request_count: client.requestCount,
        error_count: client.errorCount,
        secrets: client.secrets.map((secret) => ({
          id: secret.id,
          hint: secret.hint,
          expires_at: secret.expiresAt.toISOString(),
          expires_soon: secret.expiresSoon,
        })),
      })),
      text:
        clients.length === 0
          ? 'no OAuth clients'
          : clients
              .map((client) =>
                [
                  `OAuth client ${client.id} (${client.name})`,
                  `  client_id      ${client.clientId}`,
                  `  scopes         ${client.scopes.join(' ')}`,
                  `  IP allowlist   ${client.ipAllowlist.length > 0 ? client.ipAllowlist.join(', ') : '(any source)'}`,
                  `  last used      ${client.lastUsedAt?.toISOString() ?? 'never'}`,
                  `  requests       ${client.requestCount} (${client.errorCount} errors)`,
                  ...(client.secrets.length === 0
                    ? ['  secrets        none active: the client cannot obtain access tokens']
                    : client.secrets.map(
                        (secret) =>
                          `  secret         ${secret.id}  …${secret.hint}  expires ${secret.expiresAt.toISOString()}${secret.expiresSoon ? '  (expires soon: rotate it)' : ''}`,
                      )),
                ].join('\n'),
              )
              .join('\n\n'),
    };
  },

  'client update': async (values, runtime) => {
    const organizationId = required(values, 'org');
    const client = required(values, 'client');
    const data = await runtime.data();
    const current = (
      await (
        await import('../../services/oauth-clients/list-oauth-clients.ts')
      ).listOAuthClients(data, organizationId)
    ).find((candidate) => candidate.id === client || candidate.clientId === client);
    if (!current)
      throw new NotFound(`OAuth client ${client} was not found in organization ${organizationId}.`);
    // What is not given stays as it is; the service checks the result as PUT /api/api-keys/{id} does.
    const { id } = await (
      await import('../../services/oauth-clients/update-oauth-client.ts')
    ).updateOAuthClient(
      data,
      { organizationId, client },
      {
        name: values.name ?? current.name,
        scopes: (values.scopes?.split(/\s+/).filter(Boolean) ?? current.scopes) as never,
        ipAllowlist:
          values.allowlist === undefined
            ? current.ipAllowlist
            : values.allowlist.split(/[,\n]/).filter((entry) => entry.trim() !== ''),
      },
    );
    const [updated] = await (
      await import('../../services/oauth-clients/list-oauth-clients.ts')
    ).listOAuthClients(data, organizationId, [id]);
    if (!updated) throw new InvalidRequest(`OAuth client ${client} was deleted meanwhile.`);
    return {
      json: {
        id: updated.id,
        client_id: updated.clientId,
        name: updated.name,
        scopes: updated.scopes,
        ip_allowlist: updated.ipAllowlist,
      },
      text: [
        `OAuth client ${updated.id} (${updated.name}) updated`,
        `  client_id      ${updated.clientId}`,
        `  scopes         ${updated.scopes.join(' ')}`,
        `  IP allowlist   ${updated.ipAllowlist.length > 0 ? updated.ipAllowlist.join(', ') : '(any source)'}`,
        'Live access tokens follow the change at their next request.',
      ].join('\n'),
    };
  },

  'client delete': async (values, runtime) => {
    const deleted = await (
      await import('../../services/oauth-clients/delete-oauth-client.ts')
    ).deleteOAuthClient(await runtime.data(), {
      organizationId: required(values, 'org'),
      client: required(values, 'client'),
    });
    return {
      json: { id: deleted.id, client_id: deleted.clientId, revoked_tokens: deleted.revokedTokens },
      text: [
        `OAuth client ${deleted.id} (${deleted.clientId}) deleted with its secrets and request figures`,
        `  access tokens revoked: ${deleted.revokedTokens}`,
      ].join('\n'),
    };
  },

  'client rotate-secret': async (values, runtime) => {
    const client = required(values, 'client');
    const rotated = await (
      await import('../../services/oauth-clients/rotate-client-secret.ts')
    ).rotateClientSecret(await runtime.data(), {
      organizationId: required(values, 'org'),
      client,
    });
    return {
      json: {
        secret_id: rotated.secretId,
        client_secret: rotated.clientSecret,
        expires_at: rotated.expiresAt.toISOString(),
      },
      text: [
        `new secret ${rotated.secretId} added to OAuth client ${client}`,
        `  client_secret  ${rotated.clientSecret}`,
        `  expires        ${rotated.expiresAt.toISOString()}`,
        'The secret is shown only now; store it safely. The other active secret keeps working until you',
        'delete it with `sigil client delete-secret`.',
      ].join('\n'),
    };
  },

  'client delete-secret': async (values, runtime) => {
    const deleted = await (
      await import('../../services/oauth-clients/delete-client-secret.ts')
    ).deleteClientSecret(await runtime.data(), {
      organizationId: required(values, 'org'),
      client: required(values, 'client'),
      secretId: required(values, 'secret'),
    });
    return {
      json: {
        secret_id: deleted.secretId,
        client_id: deleted.clientId,
        deleted_at: deleted.deletedAt.toISOString(),
        active_secrets: deleted.activeSecrets,
        revoked_tokens: deleted.revokedTokens,
      },
      text: [
        `secret ${deleted.secretId} of OAuth client ${deleted.clientId} deleted`,
        `  access tokens revoked: ${deleted.revokedTokens}`,
        deleted.activeSecrets === 0
          ? '  the client has no active secret left: it cannot obtain access tokens until you rotate one in'
          : `  active secrets left: ${deleted.activeSecrets}`,
      ].join('\n'),
    };
  },

  'template create': async (values, runtime) => {
    const pdfPath = required(values, 'pdf');
    const template = await (await import('../../services/templates/create-template.ts')).createTemplate(
      await runtime.data(),
      {
        organizationId: required(values, 'org'),
        // One byte past the limit is enough for createTemplate to refuse a larger file without reading it all.
        pdf: await readInput(
          pdfPath,
          'PDF',
          (await import('../../services/templates/create-template.ts')).MAX_PDF_BYTES + 1,
        ),
        filename: basename(pdfPath),
        definition: await readJson(required(values, 'definition')),
        publish: values.publish ?? false,
      },
    );
    return {
      json: { id: template.id, name: template.name, status: template.status, pageCount: template.pageCount },
      text: `template ${template.id} created (${template.name}, ${template.pageCount} page(s), ${template.status})`,
    };
  },

  'envelope retry-final-pdf': async (values, runtime) => {
    const state = await (await import('../../services/envelopes/retry-finalization.ts')).retryFinalization(
      await runtime.services(),
      required(values, 'org'),
      required(values, 'envelope'),
    );
    return {
      json: { envelopeId: state.envelopeId, state },
      text: `envelope ${state.envelopeId}: ${state.status} (the final PDF is being rendered again)`,
    };
  },

  'envelope stuck': async (values, runtime) => {
    const olderThan = values['older-than'];
    const olderThanSeconds = olderThan === undefined ? 60 : Number(olderThan);
    if (!Number.isInteger(olderThanSeconds) || olderThanSeconds < 0) {
      throw new InvalidRequest('--older-than must be a whole number of seconds.');
    }
    const organizationId = values.org;
    if (organizationId !== undefined && !UUID_PATTERN.test(organizationId)) {
      throw new InvalidRequest('--org must be an organization id (a uuid).');
    }
    const stuck = await (await import('../../services/envelopes/stuck-envelopes.ts')).listStuckEnvelopes(
      await runtime.services(),
      { organizationId, olderThanSeconds },
    );
    return {
      json: { olderThanSeconds, envelopes: stuck },
      text:
        stuck.length === 0
          ? `no envelope's projection is parked or behind by more than ${olderThanSeconds} s`
          : stuck
              .map((envelope) =>
                [
                  `envelope ${envelope.envelopeId} (organization ${envelope.organizationId})`,
                  `  ${envelope.kind.padEnd(8)} since ${envelope.since}, PostgreSQL says ${envelope.status}${envelope.attempts === null ? '' : `, ${envelope.attempts} attempt(s)`}`,
                  `  reason   ${envelope.reason}`,
                ].join('\n'),
              )
              .join('\n'),
    };
  },

  'envelope resume-projection': async (values, runtime) => {
    const state = await (await import('../../services/envelopes/resume-projection.ts')).resumeProjection(
      await runtime.services(),
      required(values, 'org'),
      required(values, 'envelope'),
      { sanitize: values.sanitize ?? false },
    );
    return {
      json: { envelopeId: state.envelopeId, state },
      text: `envelope ${state.envelopeId}: projection resumed, every queued transition is recorded (${state.status})`,
    };
  },

  'envelope verify-audit': async (values, runtime) => {
    const chain = await (
      await import('../../services/envelopes/verify-audit-chain.ts')
    ).verifyEnvelopeAuditChain(await runtime.data(), required(values, 'org'), required(values, 'envelope'));
    return {
      json: chain,
      text: `envelope ${chain.envelopeId}: the audit chain is intact (${chain.events} events, head ${chain.head ?? 'none'})`,
    };
  },

  'envelope links': async (values, runtime) => {
    const links = await (await import('../../services/signing/issue-signing-links.ts')).issueSigningLinks(
      await runtime.data(),
      required(values, 'org'),
      required(values, 'envelope'),
    );
    return {
      json: { links },
      text:
        links.length === 0
          ? 'no acting recipients: no signing links issued'
          : links.map((link) => `${link.fullName} (${link.recipientId})\n  ${link.url}`).join('\n'),
    };
  },

  'envelope send': async (values, runtime) => {
    const organizationId = required(values, 'org');
    const recipients = await readJson(required(values, 'recipients'));
    if (!Array.isArray(recipients)) {
      throw new InvalidRequest('The recipients file must hold a JSON array of recipients.');
    }
    const envelope = await (await import('../../services/envelopes/create-envelope.ts')).createEnvelope(
      await runtime.services(),
      {
        organizationId,
        templateId: required(values, 'template'),
        title: values.title ?? 'Envelope sent from the sigil CLI',
        workflowType: values['workflow-type'] as never,
        expiresAt: values['expires-at'],
        externalReference: values['external-reference'],
        recipients,
      },
    );
    const state = await (await import('../../services/envelopes/send-envelope.ts')).sendEnvelope(
      await runtime.services(),
      organizationId,
      envelope.id,
    );
    const workflowId = (await import('../../workflows/contracts.ts')).envelopeWorkflowId(envelope.id);
    const workflowUrl =
      (await import('../../temporal/web-ui.ts')).workflowWebUiUrl(
        runtime.config.temporal,
        runtime.config.temporal.namespace,
        workflowId,
      ) ?? undefined;
    return {
      json: { envelopeId: envelope.id, workflowId, workflowUrl, state },
      text: [
        `envelope ${envelope.id} sent: ${state.status}`,
        ...state.recipients.map((r) => `  recipient ${r.id}  ${r.status}`),
        `  workflow ${workflowId}${workflowUrl ? `\n  ${workflowUrl}` : ''}`,
      ].join('\n'),
    };
  },

  ...WEBHOOK_COMMANDS,
  ...PLATFORM_ADMIN_COMMANDS,
  ...ENVELOPE_SETTINGS_COMMANDS,
  ...STORAGE_COMMANDS,
};

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidRequest(`--${String(name)} is required.`);
  }
  return value;
}

async function readInput(path: string, what: string, maxBytes?: number): Promise<Uint8Array> {
  try {
    if (maxBytes === undefined) return await readFile(path);
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(maxBytes);
      let filled = 0;
      while (filled < maxBytes) {
        const { bytesRead } = await handle.read(buffer, filled, maxBytes - filled, null);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new InvalidRequest(
      `Cannot read the ${what} file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
}

async function readJson(path: string): Promise<unknown> {
  const text = Buffer.from(await readInput(path, 'JSON')).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidRequest(`${path} is not valid JSON: ${error instanceof Error ? error.message : error}`);
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return fail(
      new InvalidRequest(error instanceof Error ? error.message : String(error)),
      argv.includes('--json'),
    );
  }
  const { values, positionals } = parsed;
  const json = values.json ?? false;
  const key = positionals.slice(0, 2).join(' ');
  const command = COMMANDS[key];
  if (values.help || positionals.length === 0) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!command || positionals.length > 2) {
    return fail(new InvalidRequest(`Unknown command "${positionals.join(' ')}". Run sigil --help.`), json);
  }

  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) return fail(new InvalidRequest(error.message), json);
    throw error;
  }
  let orm: Orm | undefined;
  let em: EntityManager | undefined;
  let temporal: TemporalClientHandle | undefined;
  let files: FileObjects | undefined;
  const connectDatabase = async (): Promise<EntityManager> => {
    if (!orm) {
      try {
        orm = await (await import('../../db/orm.ts')).createOrm({
          databaseUrl: config.database.url,
          poolMax: 2,
        });
        await orm.em.getConnection().execute('select 1');
      } catch (error) {
        throw new AppError(
          503,
          'database_unavailable',
          `Cannot reach PostgreSQL at ${redactUrl(config.database.url)} (${firstLine(error)}). ` +
            'Is `npm start` running? Otherwise set DATABASE_URL.',
        );
      }
    }
    em ??= orm.em.fork();
    return em;
  };
  const connectTemporal = async (): Promise<TemporalClientHandle> => {
    if (!temporal) {
      try {
        temporal = await (await import('../../temporal/connection.ts')).connectClient(config.temporal);
      } catch (error) {
        throw new AppError(
          503,
          'temporal_unavailable',
          `Cannot reach Temporal at ${config.temporal.address} (${firstLine(error)}). ` +
            'Is `npm start` running? Otherwise set TEMPORAL_ADDRESS.',
        );
      }
    }
    return temporal;
  };
  // Stored files' bytes (storage/file-objects.ts) on the command's database, made once per command.
  const connectFiles = async () => {
    await connectDatabase();
    if (!orm) throw new Error('unreachable: the database is connected');
    files ??= (await import('../../storage/create-object-store.ts')).createFileObjects(
      config.storage,
      orm.em,
    );
    return files;
  };
  const runtime: Runtime = {
    config,
    data: async () => ({ em: await connectDatabase(), config, files: await connectFiles() }),
    services: async () => ({
      em: await connectDatabase(),
      temporal: (await connectTemporal()).client,
      config,
      files: await connectFiles(),
    }),
  };
  try {
    const output = await command(values, runtime);
    process.stdout.write(json ? `${JSON.stringify(output.json, null, 2)}\n` : `${output.text}\n`);
    return 0;
  } catch (error) {
    return fail(error, json);
  } finally {
    await temporal?.close();
    files?.close();
    await orm?.close();
  }
}

function fail(error: unknown, json: boolean): number {
  const appError =
    error instanceof AppError
      ? error
      : new AppError(500, 'internal_error', `Unexpected error: ${firstLine(error)}`);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ error: { code: appError.code, message: appError.message, details: appError.details } }, null, 2)}\n`,
    );
  } else {
    process.stderr.write(`sigil: ${appError.message}\n`);
    for (const detail of appError.details) {
      process.stderr.write(`  - ${detail.field ? `${detail.field}: ` : ''}${detail.message}\n`);
    }
  }
  return appError.status >= 500 ? 2 : 1;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

process.exitCode = await main(process.argv.slice(2));
