// Development seed of the backoffice: a platform administrator, admin@demo.sigil.test (its domain allowed),
// with a random password made once and kept in <DATA_DIR>/platform-admin.json (readable by the owner only),
// so `npm start` can print it. Development only: scripts/start.ts calls it only there; production's first
// administrator comes from `sigil platform-admin create` (docs/backoffice.md).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PlatformAdmin } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { createPlatformAdmin, generatedPassword } from '../../services/backoffice/platform-admins.ts';
import { hashPassword, verifyPassword } from '../../services/security/passwords.ts';

export const DEMO_PLATFORM_ADMIN_EMAIL = 'admin@demo.sigil.test';

export interface DemoPlatformAdmin {
  email: string;
  password: string;
}

/** The demo administrator, created (or given a new password) when platform-admin.json does not sign it in. */
export async function seedPlatformAdmin(orm: Orm, dataDir: string): Promise<DemoPlatformAdmin> {
  const file = join(dataDir, 'platform-admin.json');
  const em = orm.em.fork();
  const kept = await readKept(file);
  const admin = await em.findOne(PlatformAdmin, { email: DEMO_PLATFORM_ADMIN_EMAIL });
  if (admin && kept && (await verifyPassword(kept.password, admin.passwordHash))) return kept;
  const password = generatedPassword();
  if (admin) {
    admin.passwordHash = await hashPassword(password);
    await em.flush();
  } else {
    await createPlatformAdmin(
      { em },
      { kind: 'operator_cli' },
      { email: DEMO_PLATFORM_ADMIN_EMAIL, fullName: 'Demo Platform Admin', password, allowDomain: true },
    );
  }
  const seeded = { email: DEMO_PLATFORM_ADMIN_EMAIL, password };
  await writeFile(file, `${JSON.stringify(seeded, null, 2)}\n`, { mode: 0o600 });
  return seeded;
}

async function readKept(file: string): Promise<DemoPlatformAdmin | null> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<DemoPlatformAdmin>;
    return typeof parsed.email === 'string' && typeof parsed.password === 'string'
      ? { email: parsed.email, password: parsed.password }
      : null;
  } catch {
    return null;
  }
}
