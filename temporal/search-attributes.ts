// Registers Sigil's custom search attributes on a namespace, so operators can filter envelopes in the
// Temporal Web UI by organization, status and external reference.
import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { searchAttributes } from '../workflows/contracts.ts';

const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

/** Adds whichever of Sigil's search attributes the namespace lacks; returns the names added. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = Object.values(searchAttributes)
    .map((key) => key.name)
    .filter((name) => !known.has(name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((name) => [name, KEYWORD])),
  });
  return missing;
}
