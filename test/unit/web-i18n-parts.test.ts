// The catalogs' two parts (web/i18n-parts.ts): a signer's phone loads only the signer page's part, so every key
// the signer page can show — in its own files and in every file they import, statically or on demand (the adopt
// dialog, the upload sheet), the frame around it included (root layout and error page, the kit's parts) — must be
// in that part. Keys are found as the page writes them: `$_('key')`, any quoted string that is a catalog key (a
// key kept in a table, such as the field types' names), and `$_(`prefix.${…}`)` (every key under the prefix).
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inSignerPart } from '../../web/i18n-parts.ts';

const WEB_SRC = fileURLToPath(new URL('../../web/src', import.meta.url));
const ENTRY_FILES = [
  'routes/+layout.svelte',
  'routes/+layout.ts',
  'routes/+error.svelte',
  'hooks.client.ts',
  'routes/sign/[token]/+page.svelte',
  'routes/sign/[token]/+page.ts',
  'routes/sign/[token]/+error.svelte',
];

/** The web files `file` imports (statically or with `import()`), by path; packages and other folders left out. */
function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'([^']+)'/g)) {
    const specifier = match[1] ?? '';
    let path: string | undefined;
    if (specifier.startsWith('$lib/')) path = join(WEB_SRC, 'lib', specifier.slice('$lib/'.length));
    else if (specifier.startsWith('.')) path = resolve(dirname(file), specifier);
    if (!path?.startsWith(WEB_SRC)) continue;
    if (/\.(svelte|ts)$/.test(path)) found.push(path);
    else found.push(`${path}.ts`, `${path}.svelte`, `${path}.svelte.ts`, join(path, 'index.ts'));
  }
  return found;
}

async function signerPageFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const queue = ENTRY_FILES.map((file) => join(WEB_SRC, file));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // one of the guesses for an import without its extension
    files.set(file, text);
    queue.push(...importsOf(file, text));
  }
  return files;
}

describe('the catalogs’ parts', () => {
  it('put every key the signer page can show in the signer page’s part', async () => {
    const en = JSON.parse(await readFile(join(WEB_SRC, 'lib/i18n/en.json'), 'utf8')) as Record<
      string,
      string
    >;
    const files = await signerPageFiles();
    expect([...files.keys()].some((file) => file.endsWith('lib/signer/AdoptDialog.svelte'))).toBe(true);
    expect([...files.keys()].some((file) => file.endsWith('lib/ui/Dialog.svelte'))).toBe(true);
    const outside = new Set<string>();
    let keys = 0;
    for (const [file, text] of files) {
      for (const match of text.matchAll(/['`]([A-Za-z]+(?:\.[A-Za-z0-9_]+)+)['`]/g)) {
        const key = match[1] ?? '';
        if (!(key in en)) continue;
        keys += 1;
        if (!inSignerPart(key)) outside.add(`${key} (${file.slice(WEB_SRC.length + 1)})`);
      }
      for (const match of text.matchAll(/\$_\(\s*`([^`$]+)\$\{/g)) {
        const prefix = match[1] ?? '';
        for (const key of Object.keys(en).filter((name) => name.startsWith(prefix))) {
          if (!inSignerPart(key)) outside.add(`${key} (${file.slice(WEB_SRC.length + 1)})`);
        }
      }
    }
    expect(keys).toBeGreaterThan(100);
    expect([...outside]).toEqual([]);
  });

  it('leave the other pages’ words out of it', () => {
    expect(inSignerPart('signer.intro.guide')).toBe(true);
    expect(inSignerPart('backoffice.credits.intro')).toBe(false);
    expect(inSignerPart('documents.status.Sent')).toBe(false);
  });
});
