// The client connection to Temporal of the API, the CLI and the worker's own starts (a worker's native connection
// is made by the worker process, temporal/worker/main.ts, so only the worker loads @temporalio/worker).
import { Client, Connection } from '@temporalio/client';

export interface TemporalTarget {
  address: string;
  namespace: string;
}

export interface TemporalClientHandle {
  client: Client;
  connection: Connection;
  close(): Promise<void>;
}

export async function connectClient(target: TemporalTarget): Promise<TemporalClientHandle> {
  const connection = await Connection.connect({ address: target.address, connectTimeout: '10 seconds' });
  const client = new Client({ connection, namespace: target.namespace });
  return { client, connection, close: () => connection.close() };
}
