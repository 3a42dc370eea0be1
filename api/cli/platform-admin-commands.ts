// `sigil platform-admin create`: the operator's way to make the first platform administrator (and any later
// one, say when every administrator lost access), on the same service as POST /api/backoffice/platform-admins
// (docs/backoffice.md, docs/cli.md). The password is generated and printed once, or read from stdin with
// --password-stdin. While no email domain is allowed yet, the address's domain becomes the first allowed
// one; after that a domain outside the list is refused unless --allow-domain adds it. Recorded in the
// backoffice audit log as done by the operator CLI.
import type { Config } from '../../config/config.ts';
import { NewPassword } from '../../domain/account.ts';
import { CreatePlatformAdministratorRequest } from '../../domain/backoffice.ts';
import type { DataContext } from '../../services/context.ts';
import { InvalidRequest } from '../../services/errors.ts';
import { parseInput } from '../../services/validation.ts';

export const PLATFORM_ADMIN_CLI_USAGE = `  platform-admin create --email EMAIL --name FULL_NAME [--password-stdin] [--allow-domain]
                  prints a generated password once (or takes one from stdin); the first administrator's
                  domain becomes the first allowed domain, --allow-domain adds another one
`;

export const PLATFORM_ADMIN_CLI_OPTIONS = {
  email: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'allow-domain': { type: 'boolean' },
} as const;

interface PlatformAdminCliValues {
  email?: string;
  name?: string;
  'password-stdin'?: boolean;
  'allow-domain'?: boolean;
}

interface CliRuntime {
  data(): Promise<DataContext & { config: Config }>;
}

type Output = { json: unknown; text: string };

/** The first line of stdin (a password piped in), without its line break. */
async function passwordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  const text = Buffer.concat(chunks).toString('utf8');
  return (text.split(/\r?\n/)[0] ?? '').trimEnd();
}

export const PLATFORM_ADMIN_COMMANDS: Record<
  string,
  (values: PlatformAdminCliValues, runtime: CliRuntime) => Promise<Output>
> = {
  'platform-admin create': async (values, runtime) => {
    const input = parseInput(
      CreatePlatformAdministratorRequest,
      {
        email: values.email ?? '',
        fullName: values.name ?? '',
      },
      'platform administrator',
    );
    let password: string | undefined;
    if (values['password-stdin']) {
      const given = NewPassword.safeParse(await passwordFromStdin());
      if (!given.success) {
        throw new InvalidRequest(`The password from stdin: ${given.error.issues[0]?.message ?? 'refused'}.`);
      }
      password = given.data;
    }
    const data = await runtime.data();
    const { PlatformAdminAllowedDomain } = await import('../../db/entities/index.ts');
    const bootstrap = (await data.em.count(PlatformAdminAllowedDomain, {})) === 0;
    const created = await (await import('../../services/backoffice/platform-admins.ts')).createPlatformAdmin(
      data,
      { kind: 'operator_cli' },
      {
        ...input,
        ...(password === undefined ? {} : { password }),
        allowDomain: bootstrap || values['allow-domain'] === true,
      },
    );
    const admin = created.admin;
    return {
      json: {
        id: admin.id,
        email: admin.email,
        fullName: admin.fullName,
        ...(password === undefined ? { password: created.password } : {}),
        domainAdded: created.domainAdded,
      },
      text: [
        `platform administrator ${admin.id} created (${admin.email}, ${admin.fullName})`,
        ...(created.domainAdded ? [`allowed email domain added: ${created.domainAdded}`] : []),
        ...(password === undefined
          ? [`password (shown once; hand it over in person): ${created.password}`]
          : ['password: the one given on stdin']),
        'sign in: POST /api/backoffice/platform-admins/otp, then the emailed code to POST /api/backoffice/session',
      ].join('\n'),
    };
  },
};
