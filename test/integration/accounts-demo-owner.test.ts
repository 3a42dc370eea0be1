// The development seed's demo owner (docs/accounts.md, "Demo owner"): owner@demo.sigil.test, the demo
// organization's Owner with a verified email and a random password kept in demo.json, who signs in through
// POST /api/auth/login; the next start keeps the password; a demo.json without one (written before there was
// a demo owner) gets a new one that works; a new data directory's demo organization takes the address over.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { AppUser, Role } from '../../db/entities/index.ts';
import { DEMO_OWNER_EMAIL, seedDemo } from '../../scripts/demo/seed-demo.ts';
import { newBrowser, useAccountsApp } from '../support/auth-http.ts';
import type { TestContext } from '../support/context.ts';

let ctx: TestContext;
let app: FastifyInstance;
const dirs: string[] = [];

useAccountsApp({}, (opened) => ({ ctx, app } = opened));
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function dataDir() {
  const dir = await mkdtemp(join(tmpdir(), 'sigil-demo-'));
  dirs.push(dir);
  return dir;
}

async function signIn(password: string | undefined) {
  return newBrowser(app).post('/api/auth/login', { email: DEMO_OWNER_EMAIL, password });
}

describe('the demo owner', () => {
  it('signs in with the password in demo.json, kept from start to start', async () => {
    const dir = await dataDir();
    const first = await seedDemo(ctx.orm, dir);
    expect(first.created).toBe(true);
    expect(first.demo.ownerEmail).toBe(DEMO_OWNER_EMAIL);
    expect(first.demo.ownerPassword).toMatch(/^[\w-]{16}$/);
    const stored = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8'));
    expect(stored.ownerPassword).toBe(first.demo.ownerPassword);

    const user = await ctx.orm.em
      .fork()
      .findOneOrFail(AppUser, { email: DEMO_OWNER_EMAIL, status: 'active' });
    expect(user.organizationId).toBe(first.demo.organizationId);
    expect(user.emailVerifiedAt).toBeInstanceOf(Date);
    expect((await ctx.orm.em.fork().findOneOrFail(Role, { id: user.roleId })).builtIn).toBe('owner');

    const login = await signIn(first.demo.ownerPassword);
    expect(login.statusCode, login.body).toBe(200);
    expect(login.json().status).toBe('signed_in');

    const second = await seedDemo(ctx.orm, dir);
    expect(second.created).toBe(false);
    expect(second.demo).toEqual(first.demo);
    expect((await signIn(first.demo.ownerPassword)).statusCode).toBe(200);

    // A demo.json from before the demo owner: the next start adds a password that works.
    const { ownerEmail: _email, ownerPassword: _password, ...older } = stored;
    await writeFile(join(dir, 'demo.json'), JSON.stringify(older));
    const third = await seedDemo(ctx.orm, dir);
    expect(third.demo.ownerPassword).toBeDefined();
    expect(third.demo.ownerPassword).not.toBe(first.demo.ownerPassword);
    expect((await signIn(third.demo.ownerPassword)).statusCode).toBe(200);
    expect((await signIn(first.demo.ownerPassword)).statusCode).toBe(401);
    expect(JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')).ownerPassword).toBe(
      third.demo.ownerPassword,
    );

    // A new data directory (a new demo organization on the same database) takes the address over.
    const other = await seedDemo(ctx.orm, await dataDir());
    expect(other.demo.organizationId).not.toBe(first.demo.organizationId);
    const login2 = await signIn(other.demo.ownerPassword);
    expect(login2.statusCode, login2.body).toBe(200);
    const owners = await ctx.orm.em.fork().find(AppUser, { email: DEMO_OWNER_EMAIL, status: 'active' });
    expect(owners.map((owner) => owner.organizationId)).toEqual([other.demo.organizationId]);
  });
});
