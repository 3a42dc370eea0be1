// The one text rule (domain/text.ts) and where it holds without a server: the request schemas, the signer's
// field values and the envelope workflow's Update validators. The routes are fuzzed end to end in
// test/integration/text-safety.test.ts.
import { describe, expect, it } from 'vitest';
import { safeText } from '../../domain/common.ts';
import { CancelEnvelopeRequest, CreateEnvelopeRequest, DeclineRequest } from '../../domain/envelope.ts';
import { jsonTextProblem, sanitizeJson, sanitizeText, textProblem } from '../../domain/text.ts';
import { checkInitialValue, checkSignerValue } from '../../services/fields/field-value.ts';
import type { EnvelopeWorkflowInput } from '../../workflows/contracts.ts';
import { EnvelopeModel } from '../../workflows/envelope-model.ts';
import { encodePng } from '../support/png.ts';

const NUL = 'a\u0000b';
const HIGH = 'a\uD800b';
const LOW = 'a\uDC00b';

describe('textProblem', () => {
  it('refuses NUL, unpaired surrogates and control characters, naming the problem', () => {
    expect(textProblem(NUL)).toBe('must not contain NUL characters');
    expect(textProblem(HIGH)).toBe('must not contain unpaired surrogate characters (invalid Unicode)');
    expect(textProblem(LOW)).toBe('must not contain unpaired surrogate characters (invalid Unicode)');
    expect(textProblem('ends high \uD83D')).toMatch(/unpaired surrogate/);
    expect(textProblem('bell \u0007')).toBe('must not contain control characters (U+0007)');
    expect(textProblem('delete \u007F')).toBe('must not contain control characters (U+007F)');
  });

  it('allows line breaks and tabs only in multi-line text', () => {
    for (const text of ['two\nlines', 'tab\there', 'crlf\r\n']) {
      expect(textProblem(text, 'line')).toBe('must be a single line (no line breaks or tabs)');
      expect(textProblem(text, 'multiline')).toBeUndefined();
    }
  });

  it('accepts every script, surrogate pairs, bidi controls and other formatting characters as they are', () => {
    for (const text of ['דנה לוי', 'emoji 😀 pair', '\u202Eevil\u202C', 'zero\u200Bwidth', '\u0085 C1', '']) {
      expect(textProblem(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('finds the first bad string of a JSON value, keys included', () => {
    expect(jsonTextProblem({ a: [1, 'ok', { b: NUL }] })).toEqual({
      path: 'a.2.b',
      problem: 'must not contain NUL characters',
    });
    expect(jsonTextProblem({ [HIGH]: 1 })?.problem).toMatch(/^property name must not contain unpaired/);
    expect(jsonTextProblem({ a: 'line\nbreak', n: null, t: true })).toBeUndefined();
  });

  it('repairs what must be kept: bad characters become U+FFFD, pairs and text survive', () => {
    expect(sanitizeText(`${NUL}${HIGH}${LOW}\u0007😀 ok`)).toBe('a\uFFFDba\uFFFDba\uFFFDb\uFFFD😀 ok');
    expect(sanitizeText('tab\tand\nline')).toBe('tab and line');
    expect(sanitizeText('tab\tand\nline', 'multiline')).toBe('tab\tand\nline');
    expect(sanitizeJson({ reason: NUL, [LOW]: [HIGH], n: 1 })).toEqual({
      reason: 'a\uFFFDb',
      'a\uFFFDb': ['a\uFFFDb'],
      n: 1,
    });
    for (const text of [NUL, HIGH, LOW, '\u0001\u001F\u007F']) {
      expect(textProblem(sanitizeText(text))).toBeUndefined();
    }
  });
});

describe('the request schemas', () => {
  const envelope = {
    title: 'Services agreement',
    templateId: '00000000-0000-4000-8000-000000000000',
    recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' }],
  };

  function problems(result: {
    success: boolean;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  }) {
    return (result.error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  }

  it('refuse bad text in every text field of an envelope, naming the field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...envelope, title: NUL }, 'title: must not contain NUL characters'],
      [{ ...envelope, externalReference: HIGH }, 'externalReference: must not contain unpaired'],
      [{ ...envelope, externalSystem: LOW }, 'externalSystem: must not contain unpaired'],
      [{ ...envelope, title: 'two\nlines' }, 'title: must be a single line'],
      [
        { ...envelope, recipients: [{ ...envelope.recipients[0], fullName: NUL }] },
        'recipients.0.fullName: must not contain NUL',
      ],
      [
        { ...envelope, recipients: [{ ...envelope.recipients[0], roleName: HIGH }] },
        'recipients.0.roleName: must not contain unpaired',
      ],
    ];
    for (const [input, expected] of cases) {
      expect(problems(CreateEnvelopeRequest.safeParse(input)).join('; ')).toContain(expected);
    }
    expect(CreateEnvelopeRequest.safeParse({ ...envelope, title: '\u202Eevil' }).success).toBe(true);
  });

  it('refuse a JSON document whose escapes spell what cannot be stored', () => {
    expect(
      problems(CreateEnvelopeRequest.safeParse({ ...envelope, externalMetadataJson: '{"a":"\\u0000"}' })),
    ).toEqual(['externalMetadataJson: externalMetadataJson: its value at a must not contain NUL characters']);
    expect(
      problems(CreateEnvelopeRequest.safeParse({ ...envelope, externalMetadataJson: '["\\ud800"]' })).join(),
    ).toMatch(/its value at 0 must not contain unpaired surrogate/);
    expect(
      CreateEnvelopeRequest.safeParse({ ...envelope, externalMetadataJson: '{\n "a": "b\\nc"\n}' }).success,
    ).toBe(true);
  });

  it('refuse bad reasons, which may span lines', () => {
    expect(problems(DeclineRequest.safeParse({ reason: NUL }))).toEqual([
      'reason: must not contain NUL characters',
    ]);
    expect(problems(CancelEnvelopeRequest.safeParse({ reason: LOW }))).toEqual([
      'reason: must not contain unpaired surrogate characters (invalid Unicode)',
    ]);
    expect(DeclineRequest.safeParse({ reason: 'not my\ncontract' }).success).toBe(true);
  });

  it('safeText chains like a string and keeps the rule first', () => {
    const schema = safeText().trim().min(1).max(5);
    expect(schema.parse('  ab  ')).toBe('ab');
    expect(schema.safeParse(`${NUL}`).error?.issues[0]?.message).toBe('must not contain NUL characters');
  });
});

describe('field values', () => {
  it('refuse bad text in prefilled and signer values, by field type', () => {
    for (const type of ['Text', 'Long text', 'Full name', 'Email', 'Radio', 'Dropdown'] as const) {
      const field = { type, options: ['a', NUL] };
      for (const bad of [NUL, HIGH, LOW]) {
        expect(checkSignerValue(field, bad), `${type} ${JSON.stringify(bad)}`).toMatchObject({ ok: false });
        expect(checkInitialValue(field, bad), `${type} ${JSON.stringify(bad)}`).toMatchObject({ ok: false });
      }
    }
    expect(checkSignerValue({ type: 'Text' }, 'one\ntwo')).toEqual({
      ok: false,
      message: 'must be a single line (no line breaks or tabs)',
    });
    expect(checkSignerValue({ type: 'Long text' }, 'one\ntwo')).toEqual({ ok: true, value: 'one\ntwo' });
    expect(checkSignerValue({ type: 'Text' }, '\u202Eabc')).toEqual({ ok: true, value: '\u202Eabc' });
  });

  it('refuse a typed name or an upload file name that cannot be stored', () => {
    const png = encodePng(2, 2, () => [0, 0, 0, 255]).toString('base64');
    expect(checkSignerValue({ type: 'Signature' }, { imagePngBase64: png, typedName: NUL })).toEqual({
      ok: false,
      message: 'typedName must not contain NUL characters',
    });
    expect(checkSignerValue({ type: 'Signature' }, { imagePngBase64: png, typedName: HIGH })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/unpaired surrogate/),
    });
    expect(
      checkSignerValue(
        { type: 'Image upload' },
        { fileBase64: png, filename: `scan${LOW}.png`, contentType: 'image/png' },
      ),
    ).toMatchObject({ ok: false, message: expect.stringMatching(/^filename must not contain unpaired/) });
  });
});

describe("the workflow's validators", () => {
  const input: EnvelopeWorkflowInput = {
    envelopeId: 'e1',
    organizationId: 'o1',
    externalReference: null,
    workflowType: 'Parallel',
    expiresAt: null,
    recipients: [{ id: 'r1', signingOrder: 1, type: 'Signer', required: true }],
  };
  function sent() {
    const model = new EnvelopeModel(input, { now: () => Date.now(), rendersFinalPdf: () => true });
    model.send();
    return model;
  }

  it('refuse a decline or cancel reason the projection could not write', () => {
    const model = sent();
    expect(model.whyCannotDecline({ recipientId: 'r1', reason: NUL })).toBe(
      'The reason must not contain NUL characters.',
    );
    expect(model.whyCannotDecline({ recipientId: 'r1', reason: HIGH })).toMatch(/unpaired surrogate/);
    expect(model.whyCannotCancel({ reason: LOW })).toMatch(/unpaired surrogate/);
    expect(model.whyCannotCancel({ reason: 7 as unknown as string })).toBe('The reason must be text.');
    expect(model.whyCannotCancel({ reason: 'changed\nmy mind' })).toBeUndefined();
    expect(model.whyCannotCancel()).toBeUndefined();
    expect(model.whyCannotDecline({ recipientId: 'r1', reason: 'no' })).toBeUndefined();
  });

  it('refuse authentication steps with values that are not theirs', () => {
    const model = new EnvelopeModel(
      { ...input, recipients: [{ ...input.recipients[0], authenticationMethod: 'OtpSms' } as never] },
      { now: () => Date.now(), rendersFinalPdf: () => true },
    );
    model.send();
    expect(
      model.whyCannotAuthenticate({ recipientId: 'r1', outcome: 'code_sent', channel: NUL as 'Sms' }),
    ).toMatch(/^Unknown channel/);
    expect(
      model.whyCannotAuthenticate({ recipientId: 'r1', outcome: 'failed', reason: HIGH as 'expired' }),
    ).toMatch(/^Unknown reason/);
  });

  it('keep a signer’s odd User-Agent, repaired, rather than refuse the signature', () => {
    const model = sent();
    const decision = model.complete({ recipientId: 'r1', ip: '203.0.113.7', userAgent: `bot${NUL}${HIGH}` });
    expect(decision.transitions[0]?.event.data).toMatchObject({
      ip: '203.0.113.7',
      user_agent: 'bota\uFFFDba\uFFFDb',
    });
  });

  it('repair a failure message before it is recorded', () => {
    const model = sent();
    const decision = model.messageSettled(
      { kind: 'invitation', recipientId: 'r1' },
      { ok: false, failureType: 'Provider', message: `refused ${NUL}` },
    );
    expect(decision.transitions[0]?.event.data).toMatchObject({ message: 'refused a\uFFFDb' });
  });
});
