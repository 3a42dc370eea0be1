// The web app's one error model and its field errors (web/README.md, "How to build a page"): a failure of the
// application routes' client (a TRPCClientError carrying the response) and of the signer's plain fetch client
// become the same RequestError; a 400's refused fields become messages in the page's language by the details'
// code and params (the server's English text only where the catalog can say no more), keyed by input id.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TRPCClientError } from '@trpc/client';
import { get } from 'svelte/store';
import { addMessages, format, init, locale } from 'svelte-i18n';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import en from '../../web/src/lib/i18n/en.json' with { type: 'json' };
import he from '../../web/src/lib/i18n/he.json' with { type: 'json' };
import { fieldErrors, formRefusal } from '../../web/src/lib/shared/field-errors.ts';
import { RequestError, requestErrorOf, UNREACHABLE } from '../../web/src/lib/shared/request-error.ts';

/** The body the server answers a send whose first recipient has neither a name nor an email (Email channel). */
const REFUSED_SEND = {
  error: {
    code: 'invalid_request',
    message: 'Invalid request: body.recipients.0.fullName: fullName is required (and 2 more)',
    details: [
      {
        field: 'body.recipients.0.fullName',
        message: 'fullName is required',
        code: 'too_small',
        params: { origin: 'string', minimum: 1, inclusive: true },
      },
      {
        field: 'body.recipients.0.email',
        message: 'email is required for the Email channel',
        code: 'custom',
        params: { key: 'recipient.emailRequiredForChannel', channel: 'Email' },
      },
      {
        field: 'body.title',
        message: 'Too big: expected string to have <=200 characters',
        code: 'too_big',
        params: { origin: 'string', maximum: 200, inclusive: true },
      },
    ],
    request_id: 'req-1',
  },
};

/** A failure as the application routes' client makes it (web/src/lib/shared/app-client.ts). */
function trpcFailure(status: number, body: unknown): TRPCClientError<never> {
  return new TRPCClientError('refused', { meta: { status, body } });
}

async function inLanguage(language: 'en' | 'he'): Promise<void> {
  await locale.set(language);
}

beforeAll(async () => {
  addMessages('en', en);
  addMessages('he', he);
  init({ fallbackLocale: 'en', initialLocale: 'en' });
  await inLanguage('en');
});

describe('the field errors of a refused form', () => {
  it('says each refused field in Hebrew on a Hebrew page, by its code, keyed by the field without its source', async () => {
    await inLanguage('he');
    const errors = fieldErrors(trpcFailure(400, REFUSED_SEND));
    expect(errors).toEqual({
      'recipients.0.fullName': he['fieldError.required'],
      'recipients.0.email': he['fieldError.recipient.emailRequiredForChannel'],
      title: 'הזינו לכל היותר 200 תווים.',
    });
    expect(Object.values(errors).join(' ')).not.toMatch(/[A-Za-z]{3}/);
  });

  it('says them in English on an English page, and keys them by the ids the form gives', async () => {
    await inLanguage('en');
    const errors = fieldErrors(trpcFailure(400, REFUSED_SEND), {
      id: (field) => (field.startsWith('recipients.0.') ? `recipient-7-${field.split('.')[2]}` : undefined),
    });
    expect(errors).toEqual({
      'recipient-7-fullName': 'Fill this in.',
      'recipient-7-email': 'Enter an email address: the link is sent there.',
    });
  });

  it("says a rule of the server's own by the key it names, with the rule's params, in the page's language", async () => {
    const refused = trpcFailure(400, {
      error: {
        code: 'invalid_request',
        message: 'Invalid request',
        details: [
          {
            field: 'body.recipients.0.phone',
            message: 'phone is required for SMS or WhatsApp delivery and for one-time-code authentication',
            code: 'custom',
            params: { key: 'recipient.phoneRequiredForChannel', channel: 'WhatsApp' },
          },
          {
            field: 'body.recipients.1.phone',
            message: 'phone is required for SMS or WhatsApp delivery and for one-time-code authentication',
            code: 'custom',
            params: { key: 'recipient.phoneRequiredForChannel', channel: 'Sms' },
          },
          {
            field: 'body.recipients.2.phone',
            message: 'phone is required for SMS or WhatsApp delivery and for one-time-code authentication',
            code: 'custom',
            params: { key: 'recipient.phoneRequiredForAuthentication', authenticationMethod: 'OtpSms' },
          },
          { field: 'body.rule', message: 'a rule no catalog knows', code: 'custom', params: { key: 'nope' } },
        ],
        request_id: 'req-4',
      },
    });
    await inLanguage('en');
    expect(fieldErrors(refused)).toEqual({
      'recipients.0.phone': 'Enter a phone number: the link is sent to it by WhatsApp.',
      'recipients.1.phone': 'Enter a phone number: the link is sent to it by SMS.',
      'recipients.2.phone': 'Enter a phone number: the one-time code is sent to it.',
      rule: 'a rule no catalog knows',
    });
    await inLanguage('he');
    expect(fieldErrors(refused)).toEqual({
      'recipients.0.phone': 'הזינו מספר טלפון: הקישור נשלח אליו ב-WhatsApp.',
      'recipients.1.phone': 'הזינו מספר טלפון: הקישור נשלח אליו ב-SMS.',
      'recipients.2.phone': he['fieldError.recipient.phoneRequiredForAuthentication'],
      rule: he['fieldError.invalid'],
    });
  });

  it("keeps the server's words only where the catalog could say no more: in English for a pattern or a rule of its own", async () => {
    const refused = trpcFailure(400, {
      error: {
        code: 'invalid_request',
        message: 'Invalid request',
        details: [
          {
            field: 'body.host',
            message: 'host must be a host name or an IP address',
            code: 'invalid_format',
            params: { format: 'regex' },
          },
          { field: 'body.rule', message: 'the rule of its own', code: 'custom' },
          { field: 'body.old', message: 'a detail without a code' },
          {
            field: 'body.mail',
            message: 'Invalid email address',
            code: 'invalid_format',
            params: { format: 'email' },
          },
        ],
        request_id: 'req-2',
      },
    });
    await inLanguage('en');
    expect(fieldErrors(refused)).toEqual({
      host: 'host must be a host name or an IP address',
      rule: 'the rule of its own',
      old: 'a detail without a code',
      mail: 'Enter an email address, for example name@example.com.',
    });
    await inLanguage('he');
    expect(fieldErrors(refused)).toEqual({
      host: he['fieldError.format'],
      rule: he['fieldError.invalid'],
      old: 'a detail without a code',
      mail: he['fieldError.email'],
    });
  });

  it('has no field errors for any other refusal, and says above the form what the fields do not', async () => {
    await inLanguage('en');
    const conflict = trpcFailure(409, {
      error: { code: 'conflict', message: 'The role is in use.', details: [], request_id: 'req-3' },
    });
    expect(fieldErrors(conflict)).toEqual({});
    const t = get(format);
    expect(formRefusal(conflict, [], t)).toBe('The role is in use.');
    expect(
      formRefusal(trpcFailure(400, REFUSED_SEND), ['recipients.0.fullName', 'recipients.0.email', 'title']),
    ).toBe('Some fields need your attention.');
    // A refused field the form does not show: the server's message says it.
    expect(formRefusal(trpcFailure(400, REFUSED_SEND), ['title'])).toBe(REFUSED_SEND.error.message);
    expect(formRefusal(new TypeError('Failed to fetch'), [])).toBe(en['workspace.unreachable']);
  });
});

describe('one error model for both clients', () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url?.includes('proxy')) {
        response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
        return;
      }
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(REFUSED_SEND));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("makes the same RequestError of the signer client's answer and of the application routes' client", async () => {
    const { fetchSigningView, SigningError } = await import('../../web/src/lib/signer/signing.ts');
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: string, options?: RequestInit) =>
      realFetch(`${origin}${input}`, options)) as typeof fetch;
    let signer: unknown;
    try {
      await fetchSigningView('a-token');
    } catch (error) {
      signer = error;
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(signer).toBeInstanceOf(SigningError);
    expect(signer).toBeInstanceOf(RequestError);
    const fromTrpc = requestErrorOf(trpcFailure(400, REFUSED_SEND));
    for (const failure of [requestErrorOf(signer), fromTrpc]) {
      expect({ ...failure, message: failure.message }).toEqual({
        name: 'RequestError',
        status: 400,
        code: 'invalid_request',
        message: REFUSED_SEND.error.message,
        details: REFUSED_SEND.error.details,
        requestId: 'req-1',
        answered: true,
      });
    }
  });

  it('says no server answered for a network failure or a page that is not the error body', async () => {
    const { fetchSigningView } = await import('../../web/src/lib/signer/signing.ts');
    const offline = requestErrorOf(
      new TRPCClientError('fetch failed', { cause: new TypeError('fetch failed') }),
    );
    expect([offline.status, offline.code, offline.serverMessage]).toEqual([0, UNREACHABLE, undefined]);
    const realFetch = globalThis.fetch;
    globalThis.fetch = (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch;
    try {
      await expect(fetchSigningView('a-token')).rejects.toMatchObject({ status: 0, code: UNREACHABLE });
    } finally {
      globalThis.fetch = realFetch;
    }
    const proxy = requestErrorOf(trpcFailure(502, undefined));
    expect([proxy.status, proxy.answered, proxy.serverMessage]).toEqual([502, false, undefined]);
  });
});
