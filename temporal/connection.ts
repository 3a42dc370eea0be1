// Connections to Temporal for the API and CLI (client) and for workers (native connection).
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';

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

export function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  return NativeConnection.connect({ address: target.address });
}
