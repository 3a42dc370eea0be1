// What must hold of the object store at the end of the cluster fault run, checked against what was observed
// through the S3 API and in PostgreSQL: no orphaned object (issue 36). A pure function of the observation, so
// the check itself is tested (test/chaos/object-invariants.test.ts) on observations broken on purpose.
import { type InvariantResult, result } from '../chaos/invariants.ts';

export interface ObjectStorageObservation {
  /** Every object in the bucket: its key (the SHA-256 hex, without the configured prefix) and when it was written. */
  objects: { key: string; storedAt: number }[];
  /** Every `file_object` row. */
  registry: { key: string; location: string; touchedAt: number }[];
  /** The keys (`stored_file.sha256`) of stored files whose bytes were not purged. */
  referenced: string[];
  /** When the observation was made, and the orphan sweep's grace period. */
  now: number;
  graceMs: number;
}

/**
 * No orphaned object: every object in the bucket has a `file_object` row that places it in S3 and is referenced
 * by a stored file, or is younger than the grace period (a put whose row never committed, which the sweep
 * removes later); every row placed in S3 has its object; every referenced key is registered.
 */
export function checkObjectStorage(o: ObjectStorageObservation): InvariantResult {
  const problems: string[] = [];
  const inBucket = new Map(o.objects.map((object) => [object.key, object]));
  const registry = new Map(o.registry.map((row) => [row.key, row]));
  const referenced = new Set(o.referenced);
  let young = 0;
  for (const object of o.objects) {
    const row = registry.get(object.key);
    const old = o.now - Math.max(object.storedAt, row?.touchedAt ?? 0) >= o.graceMs;
    if (!row) {
      if (old) problems.push(`object ${object.key} has no file_object row`);
      else young += 1;
    } else if (row.location !== 's3') {
      if (old) problems.push(`object ${object.key} is in the bucket but registered in ${row.location}`);
      else young += 1;
    } else if (!referenced.has(object.key)) {
      if (old) problems.push(`object ${object.key} is referenced by no stored file`);
      else young += 1;
    }
  }
  for (const row of o.registry) {
    if (row.location === 's3' && !inBucket.has(row.key)) {
      problems.push(`file_object ${row.key} is registered in s3 but its object is not in the bucket`);
    }
  }
  for (const key of referenced) {
    if (!registry.has(key)) problems.push(`stored file bytes ${key} have no file_object row`);
  }
  return result(
    'no orphaned object',
    `${o.objects.length} objects in the bucket, ${o.registry.length} registered, ${referenced.size} referenced; ${young} unreferenced within the ${Math.round(o.graceMs / 60_000)} min grace period`,
    problems,
  );
}
