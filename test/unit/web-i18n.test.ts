// The web app's catalogs (web/src/lib/i18n/{en,he}.json): the same keys with the same placeholders, every
// message formats in both languages through svelte-i18n itself, every key the pages use exists, and the
// panel has a label for every notification kind and channel. (The pages share the server's vocabulary and
// contracts: they import them from domain/.)
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { get } from 'svelte/store';
import { addMessages, format, init, locale } from 'svelte-i18n';
import { describe, expect, it } from 'vitest';
import { TEMPLATE_KINDS, TEMPLATE_RULES } from '../../domain/notification-templates.ts';
import {
  BULK_SEND_ROW_STATUSES,
  BULK_SEND_STATUSES,
  DELIVERY_CHANNELS,
  MESSAGE_CHANNELS,
  NOTIFICATION_KINDS,
  NOTIFY_ADMINISTRATORS,
  RECIPIENT_STATUSES,
  SENDER_NOTIFICATION_KINDS,
  WEBHOOK_DELIVERY_STATUSES,
  WORKFLOW_TYPES,
} from '../../domain/vocabulary.ts';
import { STAMP_FILE_PROBLEMS } from '../../web/src/lib/app/stamp-problems.ts';
import { SIGNING_STATES } from '../../web/src/lib/signer/signing.ts';

const WEB_SRC = fileURLToPath(new URL('../../web/src', import.meta.url));
const LANGUAGES = ['en', 'he'] as const;
type Catalog = Record<string, string>;

async function catalog(language: string): Promise<Catalog> {
  return JSON.parse(await readFile(join(WEB_SRC, 'lib/i18n', `${language}.json`), 'utf8')) as Catalog;
}

/** The argument names of an ICU message: `{name}`, `{count, plural, …}`, including nested ones. */
function argumentsOf(message: string): string[] {
  return [
    ...new Set([...message.matchAll(/\{\s*([A-Za-z_]\w*)\s*[,}]/g)].map((match) => match[1] ?? '')),
  ].sort();
}

async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path)));
    else if (/\.(svelte|ts)$/.test(entry.name)) files.push(path);
  }
  return files;
}

describe('web app catalogs', () => {
  it('have the same keys in English and Hebrew', async () => {
    const english = Object.keys(await catalog('en')).sort();
    expect(english.length).toBeGreaterThan(40);
    expect(Object.keys(await catalog('he')).sort()).toEqual(english);
  });

  it('have the same placeholders for every key, no empty message, and Hebrew that is Hebrew', async () => {
    const en = await catalog('en');
    const he = await catalog('he');
    let hebrewMessages = 0;
    for (const [key, english] of Object.entries(en)) {
      const hebrew = he[key] ?? '';
      expect(english.trim(), key).not.toBe('');
      expect(hebrew.trim(), key).not.toBe('');
      expect(argumentsOf(hebrew), key).toEqual(argumentsOf(english));
      if (/[\u0590-\u05FF]/.test(hebrew)) hebrewMessages += 1;
    }
    // Language names, product names (SMS, WhatsApp) and messages of placeholders and punctuation only (a
    // notification's "{name}: {reason}") are the same in both; everything else is translated.
    const neutral = Object.entries(en).filter(
      ([, english]) => !/[A-Za-z]/.test(english.replace(/\{\w+\}/g, '')),
    );
    expect(hebrewMessages).toBeGreaterThanOrEqual(Object.keys(en).length - neutral.length - 3);
  });

  it('format every message in both languages with svelte-i18n', async () => {
    for (const language of LANGUAGES) addMessages(language, await catalog(language));
    init({ fallbackLocale: 'en', initialLocale: 'en' });
    const en = await catalog('en');
    for (const language of LANGUAGES) {
      await locale.set(language);
      const translate = get(format);
      for (const [key, message] of Object.entries(en)) {
        const values = Object.fromEntries(argumentsOf(message).map((name) => [name, 2]));
        const text = translate(key, { values });
        expect(text, `${language} ${key}`).not.toBe(key);
        expect(text, `${language} ${key}`).not.toMatch(/[{}]/);
      }
    }
    await locale.set('he');
    expect(get(format)('devNotifications.status.count', { values: { count: 2 } })).toBe('שתי הודעות');
    expect(get(format)('devNotifications.status.count', { values: { count: 7 } })).toBe('7 הודעות');
    await locale.set('en');
    expect(get(format)('devNotifications.status.count', { values: { count: 1 } })).toBe('1 notification');
  });

  it('hold every key the pages use', async () => {
    const en = await catalog('en');
    const keys = Object.keys(en);
    const used = new Set<string>();
    const prefixes = new Set<string>();
    for (const file of await sourceFiles(WEB_SRC)) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/\$_\(\s*'([^']+)'/g)) used.add(match[1] ?? '');
      for (const match of text.matchAll(/\$_\(\s*`([^`$]+)\$\{/g)) prefixes.add(match[1] ?? '');
    }
    expect(used.size).toBeGreaterThan(20);
    for (const key of used) expect(keys, key).toContain(key);
    // Keys built from a value: every value has its message.
    expect([...prefixes].sort()).toEqual([
      'account.mfa.',
      'backoffice.templates.about.',
      'backoffice.templates.kind.',
      'backoffice.templates.variable.',
      'bulk.rowStatus.',
      'bulk.runStatus.',
      'bulk.workflowHint.',
      'devNotifications.channel.',
      'documents.channel.',
      'documents.workflowType.',
      'languages.',
      'notifications.administrators.',
      'notifications.kind.',
      'reports.',
      'reports.range.',
      'send.workflowHint.',
      'signer.complete.',
      'signer.instructions.',
      'signer.recipientStatus.',
      'signer.state.',
      'stamps.problem.',
      'webhooks.status.',
    ]);
    for (const status of WEBHOOK_DELIVERY_STATUSES) expect(keys).toContain(`webhooks.status.${status}`);
    for (const kind of TEMPLATE_KINDS) {
      expect(keys).toContain(`backoffice.templates.kind.${kind}`);
      expect(keys).toContain(`backoffice.templates.about.${kind}`);
      for (const variable of TEMPLATE_RULES[kind].variables) {
        expect(keys).toContain(`backoffice.templates.variable.${variable}`);
      }
    }
    for (const channel of DELIVERY_CHANNELS) expect(keys).toContain(`documents.channel.${channel}`);
    for (const status of BULK_SEND_STATUSES) expect(keys).toContain(`bulk.runStatus.${status}`);
    for (const status of BULK_SEND_ROW_STATUSES) expect(keys).toContain(`bulk.rowStatus.${status}`);
    for (const type of WORKFLOW_TYPES) {
      expect(keys).toContain(`documents.workflowType.${type}`);
      expect(keys).toContain(`send.workflowHint.${type}`);
      expect(keys).toContain(`bulk.workflowHint.${type}`);
    }
    for (const problem of [...STAMP_FILE_PROBLEMS, 'sides'])
      expect(keys).toContain(`stamps.problem.${problem}`);
    for (const kind of NOTIFICATION_KINDS) expect(keys).toContain(`devNotifications.kind.${kind}`);
    for (const channel of MESSAGE_CHANNELS) expect(keys).toContain(`devNotifications.channel.${channel}`);
    for (const language of LANGUAGES) expect(keys).toContain(`languages.${language}`);
    for (const kind of SENDER_NOTIFICATION_KINDS) expect(keys).toContain(`notifications.kind.${kind}`);
    for (const option of NOTIFY_ADMINISTRATORS)
      expect(keys).toContain(`notifications.administrators.${option}`);
    // The signer page: a page for every state but ready, every recipient status, every action's button.
    for (const state of SIGNING_STATES.filter((s) => s !== 'ready')) {
      expect(keys).toContain(`signer.state.${state}.title`);
      expect(keys).toContain(`signer.state.${state}.body`);
    }
    for (const status of RECIPIENT_STATUSES) expect(keys).toContain(`signer.recipientStatus.${status}`);
    for (const action of ['sign', 'fill', 'approve', 'view'])
      expect(keys).toContain(`signer.complete.${action}`);
    for (const waiting of ['waitingFields', 'waitingConsent', 'waitingDocument', 'waitingSave'])
      expect(keys).toContain(`signer.complete.${waiting}`);
    for (const action of ['approve', 'view']) expect(keys).toContain(`signer.instructions.${action}`);
    // The profile's two-step actions; the reports page's range fields and its breakdowns' words.
    for (const action of ['regenerate', 'disable']) expect(keys).toContain(`account.mfa.${action}`);
    for (const field of ['from', 'to']) expect(keys).toContain(`reports.range.${field}`);
    for (const [words, first, none] of [
      ['bySender', 'sender', 'publicApi'],
      ['byTeam', 'team', 'none'],
      ['byTemplate', 'template', 'none'],
    ]) {
      for (const word of ['title', first, none]) expect(keys).toContain(`reports.${words}.${word}`);
    }
  });
});
