// `npm run docs:credentials`: writes what each API scope and each webhook event needs, from
// domain/credential-permissions.ts, into docs/integrations.md and docs/webhooks.md between their
// `credentials:begin` and `credentials:end` markers. test/unit/credential-permissions.test.ts fails when a page
// and the code disagree.
import { readFile, writeFile } from 'node:fs/promises';
import { eventPermissionsMarkdown, scopePermissionsMarkdown } from '../domain/credential-permissions.ts';

export const CREDENTIAL_MARKERS = /<!-- credentials:begin -->\n(?:[\s\S]*?\n)?<!-- credentials:end -->/;

export const CREDENTIAL_PAGES = [
  { page: 'docs/integrations.md', table: scopePermissionsMarkdown },
  { page: 'docs/webhooks.md', table: eventPermissionsMarkdown },
] as const;

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const { page, table } of CREDENTIAL_PAGES) {
    const file = new URL(`../${page}`, import.meta.url);
    const text = await readFile(file, 'utf8');
    if (!CREDENTIAL_MARKERS.test(text)) {
      process.stderr.write(`${page} has no <!-- credentials:begin/end --> markers\n`);
      process.exit(1);
    }
    const updated = text.replace(
      CREDENTIAL_MARKERS,
      `<!-- credentials:begin -->\n${table()}\n<!-- credentials:end -->`,
    );
    await writeFile(file, updated);
    process.stdout.write(updated === text ? `${page} is up to date\n` : `${page} updated\n`);
  }
}
