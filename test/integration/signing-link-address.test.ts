// A message's signing link is issued only for the address the message goes to (db/signing-links.ts,
// insertSigningLinkIfAddressed, used by the notifications activity): a correction that changes the recipient's
// address and ends their links in one transaction cannot be overtaken by a message read before it, which would
// otherwise store a working link and mail it to the old, mistyped address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSigningLinkIfAddressed, signingTokenHash } from '../../db/signing-links.ts';
import { draftTwoSignerEnvelope, openTestContext, type TestContext } from '../support/context.ts';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

async function linksOf(recipientId: string): Promise<number> {
  const [row] = await ctx.em
    .getConnection()
    .execute<{ count: string }[]>('select count(*) from signing_link where recipient_id = ?', [recipientId]);
  return Number(row?.count);
}

describe('a message link for the address it goes to', () => {
  it('is stored while the email or phone is still that address, and refused for any other', async () => {
    const { organizationId, envelopeId, first } = await draftTwoSignerEnvelope(ctx);
    const recipient = { recipientId: first.id, envelopeId, organizationId };
    const email = await insertSigningLinkIfAddressed(
      ctx.em,
      recipient,
      { kind: 'email', to: 'dana@example.com' },
      'http://localhost:3000/',
    );
    expect(email).toMatch(/^http:\/\/localhost:3000\/sign\/[\w-]{43}$/);
    const token = email?.split('/').pop() ?? '';
    const [stored] = await ctx.em
      .getConnection()
      .execute<{ recipient_id: string; organization_id: string; revoked_at: Date | null }[]>(
        'select recipient_id, organization_id, revoked_at from signing_link where token_hash = ?',
        [signingTokenHash(token)],
      );
    expect(stored).toEqual({ recipient_id: first.id, organization_id: organizationId, revoked_at: null });

    expect(
      await insertSigningLinkIfAddressed(
        ctx.em,
        recipient,
        { kind: 'email', to: 'dana@exmaple.com' },
        'http://localhost:3000',
      ),
    ).toBeNull();
    // No phone on this recipient: a text message's link is for no address of theirs.
    expect(
      await insertSigningLinkIfAddressed(
        ctx.em,
        recipient,
        { kind: 'phone', to: '+972501234567' },
        'http://localhost:3000',
      ),
    ).toBeNull();
    // Another envelope's id with this recipient: nothing.
    expect(
      await insertSigningLinkIfAddressed(
        ctx.em,
        { ...recipient, envelopeId: (await draftTwoSignerEnvelope(ctx)).envelopeId },
        { kind: 'email', to: 'dana@example.com' },
        'http://localhost:3000',
      ),
    ).toBeNull();
    expect(await linksOf(first.id)).toBe(1);
  });

  it('waits for a change of the address in progress and then stores nothing for the old one', async () => {
    const { organizationId, envelopeId, first } = await draftTwoSignerEnvelope(ctx);
    const correction = ctx.orm.em.fork();
    await correction.begin();
    // The correction's transaction: the new address, and the recipient's links ended (none yet).
    await correction
      .getConnection()
      .execute(
        'update recipient set email = ? where id = ?',
        ['dana@example.com.corrected', first.id],
        'run',
        correction.getTransactionContext(),
      );
    let settled = false;
    const message = insertSigningLinkIfAddressed(
      ctx.em,
      { recipientId: first.id, envelopeId, organizationId },
      { kind: 'email', to: 'dana@example.com' },
      'http://localhost:3000',
    ).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled, 'the link waits for the correction in progress').toBe(false);
    await correction
      .getConnection()
      .execute(
        'update signing_link set revoked_at = now() where recipient_id = ? and revoked_at is null',
        [first.id],
        'run',
        correction.getTransactionContext(),
      );
    await correction.commit();
    expect(await message).toBeNull();
    expect(await linksOf(first.id)).toBe(0);
  });

  it('waits for a projection that holds the envelope and writes the recipient, without a deadlock', async () => {
    const { organizationId, envelopeId, first } = await draftTwoSignerEnvelope(ctx);
    const projection = ctx.orm.em.fork();
    await projection.begin();
    const run = (sql: string, params: unknown[]) =>
      projection.getConnection().execute(sql, params, 'run', projection.getTransactionContext());
    // As activities/projection.ts does: the envelope's row for update, then the recipient's row written.
    await run('select id from envelope where id = ? for update', [envelopeId]);
    const message = insertSigningLinkIfAddressed(
      ctx.em,
      { recipientId: first.id, envelopeId, organizationId },
      { kind: 'email', to: 'dana@example.com' },
      'http://localhost:3000',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await run("update recipient set status = 'InvitationSent' where id = ?", [first.id]);
    await projection.commit();
    expect(await message).toMatch(/\/sign\//);
    expect(await linksOf(first.id)).toBe(1);
  });
});
