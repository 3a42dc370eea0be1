// The cluster fault run's object-storage check (scripts/cluster/object-invariants.ts) on observations made by
// hand: a clean one passes, and each observation broken the way a defect would break it fails with the problem
// named — an object without a registry row, a row whose object is gone, an object no stored file references —
// while an unreferenced object younger than the grace period (a put whose row never committed) is allowed.
import { describe, expect, it } from 'vitest';
import {
  checkObjectStorage,
  type ObjectStorageObservation,
} from '../../scripts/cluster/object-invariants.ts';

const key = (n: number) => n.toString(16).padStart(64, '0');
const NOW = 10_000_000;
const HOUR = 3_600_000;
const OLD = NOW - 2 * HOUR;

function clean(): ObjectStorageObservation {
  return {
    objects: [
      { key: key(1), storedAt: OLD },
      { key: key(2), storedAt: OLD },
    ],
    registry: [
      { key: key(1), location: 's3', touchedAt: OLD },
      { key: key(2), location: 's3', touchedAt: OLD },
      // Still in the PostgreSQL store (not migrated): not expected in the bucket.
      { key: key(3), location: 'postgres', touchedAt: OLD },
    ],
    referenced: [key(1), key(2), key(3)],
    now: NOW,
    graceMs: HOUR,
  };
}

describe('no orphaned object', () => {
  it('holds for a bucket and registry that agree', () => {
    expect(checkObjectStorage(clean())).toMatchObject({ ok: true, problems: [] });
  });

  it('names an old object without a registry row', () => {
    const o = clean();
    o.objects.push({ key: key(9), storedAt: OLD });
    expect(checkObjectStorage(o).problems).toEqual([`object ${key(9)} has no file_object row`]);
  });

  it('allows an unregistered object within the grace period, and counts it', () => {
    const o = clean();
    o.objects.push({ key: key(9), storedAt: NOW - 60_000 });
    const verdict = checkObjectStorage(o);
    expect(verdict.ok).toBe(true);
    expect(verdict.summary).toContain('1 unreferenced within the 60 min grace period');
  });

  it('names an old object that no stored file references', () => {
    const o = clean();
    o.referenced = [key(2), key(3)];
    expect(checkObjectStorage(o).problems).toEqual([`object ${key(1)} is referenced by no stored file`]);
  });

  it('names a registered object that is not in the bucket', () => {
    const o = clean();
    o.objects = o.objects.filter((object) => object.key !== key(2));
    expect(checkObjectStorage(o).problems).toEqual([
      `file_object ${key(2)} is registered in s3 but its object is not in the bucket`,
    ]);
  });

  it('names referenced bytes without a registry row, and an object in the bucket registered elsewhere', () => {
    const o = clean();
    o.referenced.push(key(7));
    o.registry = o.registry.map((row) => (row.key === key(1) ? { ...row, location: 'postgres' } : row));
    expect(checkObjectStorage(o).problems).toEqual([
      `object ${key(1)} is in the bucket but registered in postgres`,
      `stored file bytes ${key(7)} have no file_object row`,
    ]);
  });
});
