// The one rule for text that Sigil accepts and stores, as pure functions without imports: the request
// schemas (domain/common.ts `safeText`), the signer's field values, the workflow's Update validators and the
// projection's repair all ask these, so nothing is accepted that PostgreSQL cannot write.
//
// Refused everywhere: NUL (PostgreSQL's text and jsonb cannot hold U+0000), unpaired UTF-16 surrogates
// (they have no UTF-8 form) and the other C0 control characters and DEL, which no form or integration means
// to send. Tab, line feed and carriage return are allowed only in multi-line text (reasons, Long text,
// JSON documents); single-line text (names, titles, references, labels) refuses them too. Everything else —
// right-to-left marks and overrides, other invisible formatting characters, emoji, any script — is stored
// exactly as sent.

/** Single-line text (names, titles, references) or multi-line text (reasons, long texts, JSON). */
export type TextKind = 'line' | 'multiline';

export const TEXT_PROBLEMS = {
  nul: 'must not contain NUL characters',
  surrogate: 'must not contain unpaired surrogate characters (invalid Unicode)',
  lineBreak: 'must be a single line (no line breaks or tabs)',
} as const;

/** The replacement for what cannot be stored, when text is repaired rather than refused. */
export const REPLACEMENT_CHARACTER = '\uFFFD';

/** Why `value` cannot be accepted as text of this kind, or undefined when it can. */
export function textProblem(value: string, kind: TextKind = 'line'): string | undefined {
  let control: number | undefined;
  let lineBreak = false;
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code === 0) return TEXT_PROBLEMS.nul;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        index += 1;
        continue;
      }
      return TEXT_PROBLEMS.surrogate;
    }
    if (code >= 0xdc00 && code <= 0xdfff) return TEXT_PROBLEMS.surrogate;
    if (code === 0x09 || code === 0x0a || code === 0x0d) {
      lineBreak = true;
    } else if (control === undefined && (code < 0x20 || code === 0x7f)) {
      control = code;
    }
  }
  if (control !== undefined) {
    return `must not contain control characters (U+${control.toString(16).toUpperCase().padStart(4, '0')})`;
  }
  if (lineBreak && kind === 'line') return TEXT_PROBLEMS.lineBreak;
  return undefined;
}

/**
 * Why a JSON value of unknown shape (prefilled values, JSON documents) holds text that cannot be accepted:
 * every string and every key, at any depth, is checked as multi-line text. Answers the problem with the
 * path of the first offending string (`a.0.b`; empty for the value itself), or undefined.
 */
export function jsonTextProblem(value: unknown, path = ''): { path: string; problem: string } | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value, 'multiline');
    return problem ? { path, problem } : undefined;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = jsonTextProblem(value[index], join(path, String(index)));
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = textProblem(key, 'multiline');
      if (keyProblem) return { path: join(path, key), problem: `property name ${keyProblem}` };
      const found = jsonTextProblem(item, join(path, key));
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Repairs text that must be kept rather than refused (a browser's User-Agent, a provider's error message):
 * NUL, unpaired surrogates and the other control characters become U+FFFD; tab, line feed and carriage
 * return stay in multi-line text and become spaces in single-line text.
 */
export function sanitizeText(value: string, kind: TextKind = 'line'): string {
  let out = '';
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += value.slice(index, index + 2);
        index += 1;
      } else {
        out += REPLACEMENT_CHARACTER;
      }
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      out += REPLACEMENT_CHARACTER;
    } else if (code === 0x09 || code === 0x0a || code === 0x0d) {
      out += kind === 'multiline' ? value.charAt(index) : ' ';
    } else if (code < 0x20 || code === 0x7f) {
      out += REPLACEMENT_CHARACTER;
    } else {
      out += value.charAt(index);
    }
  }
  return out;
}

/** A JSON value with every string and key repaired by `sanitizeText` (multi-line), otherwise unchanged. */
export function sanitizeJson<T>(value: T): T {
  if (typeof value === 'string') return sanitizeText(value, 'multiline') as T;
  if (Array.isArray(value)) return value.map((item) => sanitizeJson(item)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [sanitizeText(key, 'multiline'), sanitizeJson(item)]),
    ) as T;
  }
  return value;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
