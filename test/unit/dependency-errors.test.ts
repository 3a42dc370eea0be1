// The one error mapping (api/http/errors.ts) turns an unavailable dependency into 503 `service_unavailable`
// with Retry-After, whatever shape the driver gives the failure, and leaves every other failure a 500.
// Real outages through the whole app: test/integration/outages.test.ts.
import { ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { clientErrorOf } from '../../api/http/errors.ts';
import { TemporalUnavailableError } from '../../temporal/deadline.ts';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The shape of a gRPC failure as @grpc/grpc-js reports it. */
function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

const databaseDown: [string, unknown][] = [
  ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
  ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
  ['a connection dropped mid-query', new Error('Connection terminated unexpectedly')],
  ['the pool waiting too long for a connection', new Error('timeout exceeded when trying to connect')],
  ['an administrator shutting the server down (57P01)', withCode('terminating connection', '57P01')],
  ['a server still starting (57P03)', withCode('the database system is starting up', '57P03')],
  ['a connection failure (08006)', withCode('connection failure', '08006')],
  ['too many connections (53300)', withCode('sorry, too many clients already', '53300')],
  [
    'every address of the host refusing',
    new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')], 'connect failed'),
  ],
  ['a wrapped driver error', new Error('query failed', { cause: withCode('x', '57P01') })],
];

const temporalDown: [string, unknown][] = [
  [
    'an unreachable server',
    new ServiceError('Failed to start Workflow', { cause: grpcError(14, 'No connection') }),
  ],
  ['a gRPC deadline', new ServiceError('Failed', { cause: grpcError(4, 'Deadline exceeded') })],
  ['an Update call that timed out', new WorkflowUpdateRPCTimeoutOrCancelledError('timeout')],
  ['a deadline of ours', new TemporalUnavailableError('Temporal did not answer within 10 s (x).')],
];

describe('dependency failures in the error mapping', () => {
  it.each(databaseDown)('PostgreSQL: %s is a 503 with Retry-After', (_name, error) => {
    const mapped = clientErrorOf(error);
    expect(mapped).toMatchObject({
      status: 503,
      code: 'service_unavailable',
      headers: { 'Retry-After': '5' },
    });
    expect(mapped?.message).toMatch(/database is unavailable/);
  });

  it.each(temporalDown)('Temporal: %s is a 503 with Retry-After', (_name, error) => {
    const mapped = clientErrorOf(error);
    expect(mapped).toMatchObject({
      status: 503,
      code: 'service_unavailable',
      headers: { 'Retry-After': '5' },
    });
    expect(mapped?.message).toMatch(/Temporal/);
  });

  it('leaves other failures unexpected (a 500 without internals)', () => {
    expect(clientErrorOf(withCode('duplicate key value', '23505'))).toBeUndefined();
    expect(clientErrorOf(withCode('syntax error', '42601'))).toBeUndefined();
    // PostgreSQL's answer to a NUL in a text parameter: the data's fault, not an outage.
    expect(clientErrorOf(withCode('invalid message format', '08P01'))).toBeUndefined();
    expect(clientErrorOf(new Error('something broke'))).toBeUndefined();
    expect(
      clientErrorOf(new ServiceError('refused', { cause: grpcError(3, 'invalid argument') })),
    ).toBeUndefined();
  });
});
