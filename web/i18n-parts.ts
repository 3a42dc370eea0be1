// The web build's Vite plugin (web/vite.config.ts) that splits the catalogs (src/lib/i18n/en.json, he.json) in
// two, so a signer on a phone does not download and parse every page's words (docs/performance.md, "The signer
// page on a phone"): `virtual:i18n/signer` holds the keys the signer page and the frame of every page use (the
// prefixes below), in both languages; `virtual:i18n/rest` holds all the others, loaded by the root layout for
// every page but the signer's (src/routes/+layout.ts). The catalogs stay one file per language, edited as
// before; the modules are made from them when they are built. Types: src/i18n-parts.d.ts.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

/** What the signer page says (and the frame around it: header, skip link, errors, dialogs, field errors). */
export const SIGNER_PREFIXES = [
  'app.',
  'languages.',
  'ui.',
  'error.',
  'fieldError.',
  'workspace.',
  'signer.',
  // The builder's default field names, which the signer page recognises as unnamed fields (SigningWork).
  'templates.fieldType.',
  // The kit's form alert (FormAlert), in the delegate dialog.
  'account.fixErrors',
];
const PARTS = ['signer', 'rest'] as const;
const PREFIX = 'virtual:i18n/';
const CATALOGS = { en: 'src/lib/i18n/en.json', he: 'src/lib/i18n/he.json' };
const WEB = fileURLToPath(new URL('.', import.meta.url));

export const inSignerPart = (key: string): boolean =>
  SIGNER_PREFIXES.some((prefix) => key.startsWith(prefix));

export function i18nPartsPlugin(): Plugin {
  return {
    name: 'sigil-i18n-parts',
    resolveId: (id) => (id.startsWith(PREFIX) ? `\0${id}` : undefined),
    async load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return undefined;
      const part = id.slice(PREFIX.length + 1);
      if (!(PARTS as readonly string[]).includes(part)) throw new Error(`no catalog part ${part}`);
      const messages: Record<string, Record<string, string>> = {};
      for (const [language, path] of Object.entries(CATALOGS)) {
        const file = `${WEB}${path}`;
        this.addWatchFile(file);
        const catalog = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
        messages[language] = Object.fromEntries(
          Object.entries(catalog).filter(([key]) => inSignerPart(key) === (part === 'signer')),
        );
      }
      // JSON.parse of a string is read faster than the same object written as a literal (V8's advice).
      return `export default JSON.parse(${JSON.stringify(JSON.stringify(messages))});\n`;
    },
  };
}
