// A refused field says what rule it broke, so a page can say it in its own language (docs/app-api.md, "Errors"):
// each detail of a 400 `invalid_request` carries zod's issue code and the schema's own limits as params —
// `{ field: 'body.recipients.0.fullName', message, code: 'too_small', params: { origin: 'string', minimum: 1,
// inclusive: true } }` — on the application routes (tRPC), on /api/v1 (Fastify's schema validation) and from a
// service's own parsing; never the value that was sent.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidRequest } from '../../services/errors.ts';
import { parseInput } from '../../services/validation.ts';
import { type ApiHarness, newIntegrator, openApiHarness } from '../support/api.ts';
import { documentTemplate } from '../support/documents.ts';
import { signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await openApiHarness();
});

afterAll(() => harness.close());

const SECRET_NAME = `x${'y'.repeat(250)}-${randomUUID()}`;

describe('the rule each refused field broke', () => {
  it('on the application routes: a send whose recipient has no name and no address for the Email channel', async () => {
    const sender = await signedInUser(harness, { role: 'owner' });
    const templateId = await documentTemplate(harness.ctx, sender.organization.id);
    const response = await harness.app.inject({
      method: 'POST',
      url: '/api/documents/send-from-template',
      headers: sender.headers,
      payload: {
        title: SECRET_NAME,
        templateId,
        draft: true,
        recipients: [{ roleName: 'Client', fullName: '  ', deliveryChannel: 'Email' }],
      },
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual(
      expect.arrayContaining([
        {
          field: 'body.title',
          message: expect.any(String),
          code: 'too_big',
          params: { origin: 'string', maximum: 200, inclusive: true },
        },
        {
          field: 'body.recipients.0.fullName',
          message: expect.any(String),
          code: 'too_small',
          params: { origin: 'string', minimum: 1, inclusive: true },
        },
        {
          field: 'body.recipients.0.email',
          message: expect.any(String),
          code: 'custom',
          params: { key: 'recipient.emailRequiredForChannel', channel: 'Email' },
        },
      ]),
    );
    // The rule, never the value that broke it.
    expect(response.body).not.toContain(SECRET_NAME);
  });

  it("names the recipient's own rules by key, on the application routes and on /api/v1", async () => {
    const sender = await signedInUser(harness, { role: 'owner' });
    const templateId = await documentTemplate(harness.ctx, sender.organization.id);
    const app = await harness.app.inject({
      method: 'POST',
      url: '/api/documents/send-from-template',
      headers: sender.headers,
      payload: {
        title: 'A title',
        templateId,
        draft: true,
        recipients: [
          {
            roleName: 'Client',
            fullName: 'Dana Levi',
            deliveryChannel: 'WhatsApp',
            email: 'dana@example.com',
          },
          {
            roleName: 'Provider',
            fullName: 'Sam Cohen',
            email: 'sam@example.com',
            deliveryChannel: 'Email',
            authenticationMethod: 'OtpSms',
          },
        ],
      },
    });
    expect(app.statusCode).toBe(400);
    expect(app.json().error.details).toEqual([
      {
        field: 'body.recipients.0.phone',
        message: expect.any(String),
        code: 'custom',
        params: { key: 'recipient.phoneRequiredForChannel', channel: 'WhatsApp' },
      },
      {
        field: 'body.recipients.1.phone',
        message: expect.any(String),
        code: 'custom',
        params: { key: 'recipient.phoneRequiredForAuthentication', authenticationMethod: 'OtpSms' },
      },
    ]);

    const integrator = await newIntegrator(harness);
    const v1 = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/envelopes/from-template',
      headers: await integrator.auth(),
      payload: {
        title: 'A title',
        templateId: integrator.templateId,
        recipients: [{ roleName: 'Client', fullName: 'Dana Levi', deliveryChannel: 'Sms' }],
      },
    });
    expect(v1.statusCode).toBe(400);
    expect(v1.json().error.details).toEqual([
      {
        field: 'body.recipients.0.phone',
        message: expect.any(String),
        code: 'custom',
        params: { key: 'recipient.phoneRequiredForChannel', channel: 'Sms' },
      },
    ]);
  });

  it('on the application routes: an address that is not one, and a field the request does not define', async () => {
    const user = await signedInUser(harness, { role: 'owner' });
    const response = await harness.app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers: user.headers,
      payload: { name: 'Dana', email: 'not-an-address', nickname: 'D' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field: 'body.email',
          code: 'invalid_format',
          params: expect.objectContaining({ format: 'email' }),
        }),
        { field: 'body.nickname', message: 'is not a field of this request', code: 'unrecognized_keys' },
      ]),
    );
  });

  it('on /api/v1: the schema validation of a create request', async () => {
    const integrator = await newIntegrator(harness);
    const response = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/envelopes/from-template',
      headers: await integrator.auth(),
      payload: {
        title: 'A title',
        templateId: integrator.templateId,
        recipients: [],
      },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([
      {
        field: 'body.recipients',
        message: 'at least one recipient is required',
        code: 'too_small',
        params: { origin: 'array', minimum: 1, inclusive: true },
      },
    ]);
  });

  it("from a service's own parsing, a rule of the schema's own with the params it gives", () => {
    const schema = z
      .object({ code: z.string().length(6), count: z.number().int().max(10) })
      .superRefine((value, ctx) => {
        if (value.code === '000000') {
          ctx.addIssue({
            code: 'custom',
            path: ['code'],
            message: 'not zeros',
            params: { key: 'zeros', n: 6 },
          });
        }
      });
    let refused: unknown;
    try {
      parseInput(schema, { code: '12', count: 11.5 }, 'test input');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(InvalidRequest);
    expect((refused as InvalidRequest).details).toEqual([
      {
        field: 'code',
        message: expect.any(String),
        code: 'too_small',
        params: { origin: 'string', minimum: 6, inclusive: true, exact: true },
      },
      { field: 'count', message: expect.any(String), code: 'invalid_type', params: { expected: 'int' } },
    ]);
    expect(() => parseInput(schema, { code: '000000', count: 1 }, 'test input')).toThrow(
      expect.objectContaining({
        details: [{ field: 'code', message: 'not zeros', code: 'custom', params: { key: 'zeros', n: 6 } }],
      }),
    );
  });
});
