// What the HTTP layer answers before a route runs, always in the specification's error body: a method a path
// does not have (405 with Allow), an unknown path (404), headers too large for Node (431) and bytes that are
// not HTTP (400), the last two answered by Node's own parser through the server's client-error handler.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ApiHarness, listenLocally, newIntegrator, openApiHarness } from '../support/api.ts';

let harness: ApiHarness;
let baseUrl: string;
beforeAll(async () => {
  harness = await openApiHarness();
  baseUrl = await listenLocally(harness.app);
});
afterAll(() => harness.close());

function expectBody(body: unknown, code: string) {
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array), request_id: expect.any(String) },
  });
}

it('answers 405 with Allow for a method the path does not have, 404 for a path nobody serves', async () => {
  const id = '00000000-0000-4000-8000-000000000000';
  for (const [method, url, allow] of [
    ['PUT', `/api/v1/envelopes/${id}`, 'GET, PATCH, HEAD'],
    ['DELETE', '/api/v1/templates', 'GET, HEAD'],
    ['GET', `/api/v1/envelopes/${id}/send`, 'POST'],
    ['GET', '/oauth/token', 'POST'],
    // A method no route has at all, sent without a body or content type.
    ['QUERY', '/api/v1/organization', 'GET, HEAD'],
    ['QUERY', '/api/plans', 'GET, HEAD'],
    // A static path that a parametric route (GET /api/v1/envelopes/{id}) would otherwise catch.
    ['GET', '/api/v1/envelopes/from-template', 'POST'],
    ['OPTIONS', '/api/v1/envelopes/from-template', 'POST'],
  ] as const) {
    const response = await harness.app.inject({ method: method as 'GET', url });
    expect(response.statusCode, `${method} ${url}`).toBe(405);
    expect(response.headers.allow, `${method} ${url}`).toBe(allow);
    expectBody(response.json(), 'method_not_allowed');
  }
  const unknown = await harness.app.inject({ method: 'POST', url: '/api/v1/nothing' });
  expect(unknown.statusCode).toBe(404);
  expectBody(unknown.json(), 'not_found');
});

it('refuses a path parameter of any length with a 400 naming it, never an undocumented 414', async () => {
  const integrator = await newIntegrator(harness);
  const headers = { ...(await integrator.auth()), 'content-type': 'application/json' };
  // Longer than find-my-way's default limit (100 characters), once as combining marks (the fuzzer's find).
  const zalgo = `T${'\u0330\u0301o\u035e'.repeat(60)}`;
  for (const id of ['x'.repeat(101), zalgo, 'y'.repeat(10_000)]) {
    for (const [method, url] of [
      ['POST', `/api/v1/envelopes/${encodeURIComponent(id)}/cancel`],
      ['GET', `/api/v1/envelopes/${encodeURIComponent(id)}`],
    ] as const) {
      const response = await harness.app.inject({
        method,
        url,
        headers,
        ...(method === 'POST' ? { payload: '{}' } : {}),
      });
      expect(response.statusCode, `${method} ${id.length} characters`).toBe(400);
      expectBody(response.json(), 'invalid_request');
      expect(JSON.stringify(response.json().error.details), `${method} ${id.length} characters`).toContain(
        'id',
      );
    }
  }
});

/** Sends raw bytes and returns the raw answer (status line, headers, body). */
function raw(request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(request);
  });
}

it('answers headers too large with 431 and the error body', async () => {
  const answer = await raw(`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(40_000)}\r\n\r\n`);
  expect(answer).toMatch(/^HTTP\/1\.1 431 /);
  expect(answer).toMatch(/content-type: application\/json/i);
  expectBody(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), 'request_header_fields_too_large');
});

it('answers bytes that are not HTTP with 400 and the error body', async () => {
  const answer = await raw('NOT HTTP AT ALL\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  expectBody(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), 'invalid_request');
});
