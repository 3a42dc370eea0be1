// Field errors a person can read (web/README.md, "Field errors"): a 400 `invalid_request` names each refused field
// in its details — `{ field: 'body.recipients.0.fullName', message, code: 'too_small', params: { origin:
// 'string', minimum: 1 } }` (docs/app-api.md, "Errors") — and this turns them into messages in the page's
// language, keyed by the id of the input that shows each one. The message comes from the catalog by the
// detail's code and params (`fieldError.*`: required, too long, not an email address…). A rule the catalog can
// only say in general — a pattern (`invalid_format` `regex`), a rule of the server's own (`custom`) — takes the
// page's key for that field when it gives one (`messages`), else the server's own text while the page is in
// English (it says which form is wanted), else the general words. No code at all: the server's text.
import { get } from 'svelte/store';
import { dictionary, format, locale } from 'svelte-i18n';
import { type ErrorDetail, requestErrorOf } from './request-error.ts';

/** svelte-i18n's formatter (`$_`), or any function of the same shape. */
export type Translate = (key: string, options?: { values?: Record<string, string | number> }) => string;

/** Catalog keys by a detail's code, for fields whose pattern (`recipients.*.email`) matches. */
export type FieldMessages = Record<string, Partial<Record<string, string>>>;

export interface FieldErrorOptions {
  /**
   * The id of the input that shows a field's error (`recipients.0.email` → `recipient-3-email`); undefined for
   * a field the form does not show. Without it, the field's name (`recipients.0.email`) is the key.
   */
  id?: (field: string) => string | undefined;
  /** The page's messages for its own rules: `{ 'hosts.*': { invalid_format: 'webhooks.hostForm' } }`. */
  messages?: FieldMessages;
  /** The formatter (tests, or a page that has `$_` at hand); the current language's by default. */
  t?: Translate;
  /** The page's language (the server's texts are English); the current one by default. */
  language?: string | null | undefined;
}

/** Whether the English catalog, as loaded (lib/i18n: the signer page's part holds every `fieldError.` key), has `key`. */
const inCatalog = (key: string): boolean => key in (get(dictionary).en ?? {});

/** A field as the form knows it: without the part of the request it came from (`body.`, `querystring.`). */
export function fieldOf(detail: ErrorDetail): string | undefined {
  return typeof detail.field === 'string' && detail.field
    ? detail.field.replace(/^(body|querystring|params|query)\./, '')
    : undefined;
}

function matches(pattern: string, field: string): boolean {
  const parts = pattern.split('.');
  const names = field.split('.');
  return parts.length === names.length && parts.every((part, index) => part === '*' || part === names[index]);
}

function numberParam(params: Record<string, unknown>, name: string): number | undefined {
  const value = params[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A catalog message for a detail: `general` when it says the kind of problem but not what the field wants. */
interface CatalogMessage {
  key: string;
  values?: Record<string, string | number>;
  general?: boolean;
}

/** The catalog key and values for a detail's code and params; undefined when the code says nothing known. */
function keyFor(detail: ErrorDetail): CatalogMessage | undefined {
  const params = detail.params ?? {};
  const origin = params.origin;
  const minimum = numberParam(params, 'minimum');
  const maximum = numberParam(params, 'maximum');
  switch (detail.code) {
    case 'too_small':
      if (minimum === undefined) return undefined;
      if (origin === 'string') {
        return minimum <= 1
          ? { key: 'fieldError.required' }
          : { key: 'fieldError.tooShort', values: { min: minimum } };
      }
      if (origin === 'array' || origin === 'set') {
        return minimum <= 1
          ? { key: 'fieldError.atLeastOne' }
          : { key: 'fieldError.tooFew', values: { min: minimum } };
      }
      if (origin === 'number' || origin === 'int' || origin === 'bigint') {
        return { key: 'fieldError.tooSmall', values: { min: minimum } };
      }
      return undefined;
    case 'too_big':
      if (maximum === undefined) return undefined;
      if (origin === 'string') return { key: 'fieldError.tooLong', values: { max: maximum } };
      if (origin === 'array' || origin === 'set')
        return { key: 'fieldError.tooMany', values: { max: maximum } };
      if (origin === 'number' || origin === 'int' || origin === 'bigint') {
        return { key: 'fieldError.tooLarge', values: { max: maximum } };
      }
      return undefined;
    case 'invalid_format':
      if (params.format === 'email') return { key: 'fieldError.email' };
      if (params.format === 'url') return { key: 'fieldError.url' };
      if (params.format === 'datetime' || params.format === 'date') return { key: 'fieldError.date' };
      return { key: 'fieldError.format', general: true };
    case 'invalid_value':
      return { key: 'fieldError.choose' };
    case 'invalid_type':
      return { key: 'fieldError.invalid' };
    case 'custom': {
      // A rule of the server's own may name its message: `params.key` under `fieldError.`, said with the rule's
      // other params (`{ key: 'recipient.phoneRequiredForChannel', channel: 'Sms' }`).
      const key = typeof params.key === 'string' ? `fieldError.${params.key}` : undefined;
      if (!key || !inCatalog(key)) return { key: 'fieldError.invalid', general: true };
      const values = Object.fromEntries(
        Object.entries(params).filter(
          (entry): entry is [string, string | number] =>
            entry[0] !== 'key' && (typeof entry[1] === 'string' || typeof entry[1] === 'number'),
        ),
      );
      return Object.keys(values).length > 0 ? { key, values } : { key };
    }
    default:
      return undefined;
  }
}

/** One detail's message in the page's language (see the file's head for which words win). */
export function fieldMessage(
  detail: ErrorDetail,
  t: Translate,
  options: { pageKey?: string | undefined; language?: string | null | undefined } = {},
): string {
  if (options.pageKey) return t(options.pageKey);
  const server = typeof detail.message === 'string' && detail.message ? detail.message : undefined;
  const known = keyFor(detail);
  if (!known) return server ?? t('fieldError.invalid');
  const english = (options.language ?? 'en').toLowerCase().startsWith('en');
  if (known.general && english && server) return server;
  return t(known.key, known.values ? { values: known.values } : undefined);
}

function pageKeyFor(messages: FieldMessages | undefined, field: string, code: string | undefined) {
  if (!messages || !code) return undefined;
  for (const [pattern, byCode] of Object.entries(messages)) {
    if (matches(pattern, field) && byCode[code]) return byCode[code];
  }
  return undefined;
}

/**
 * The refused fields of a 400 `invalid_request` as messages by input id (the first message of a field wins);
 * empty for any other failure, which the form says above its fields (`formRefusal`).
 */
export function fieldErrors(error: unknown, options: FieldErrorOptions = {}): Record<string, string> {
  const failure = requestErrorOf(error);
  const errors: Record<string, string> = {};
  if (failure.code !== 'invalid_request') return errors;
  const t = options.t ?? (get(format) as Translate);
  const language = options.language === undefined ? get(locale) : options.language;
  for (const detail of failure.details) {
    const field = fieldOf(detail);
    if (!field) continue;
    const id = options.id ? options.id(field) : field;
    if (!id || errors[id] !== undefined) continue;
    errors[id] = fieldMessage(detail, t, {
      pageKey: pageKeyFor(options.messages, field, detail.code),
      language,
    });
  }
  return errors;
}

/**
 * What a form says above its fields when the server refused it: "some fields need your attention" when every
 * refused field shows its message beside its input (`shown`: the names of the fields the form shows, as the
 * server names them — `recipients.0.email` — or a test of such a name), else the server's message, or that the
 * server could not be reached.
 */
export function formRefusal(
  error: unknown,
  shown: readonly string[] | ((field: string) => boolean),
  t?: Translate,
): string {
  const translate = t ?? (get(format) as Translate);
  const failure = requestErrorOf(error);
  const refused = failure.code === 'invalid_request' ? failure.details.flatMap((d) => fieldOf(d) ?? []) : [];
  const isShown = typeof shown === 'function' ? shown : (field: string) => shown.includes(field);
  if (refused.length > 0 && refused.every(isShown)) {
    return translate('account.fixErrors');
  }
  return failure.serverMessage ?? translate('workspace.unreachable');
}
