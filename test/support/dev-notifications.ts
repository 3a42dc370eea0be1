// What a development Sigil captured instead of sending (GET /api/dev/notifications): browser tests read
// signing links and one-time codes there, as a developer would.
import { expect } from 'vitest';

export interface Captured {
  kind: string;
  to: string;
  signingLink: string | null;
  otpCode: string | null;
}

/** The captured notifications matching a query string (e.g. `kind=invitation&to=…`), newest first. */
export async function captured(baseUrl: string, query: string): Promise<Captured[]> {
  const response = await fetch(`${baseUrl}/api/dev/notifications?${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { notifications: Captured[] }).notifications;
}

/** The newest notification matching the query, waiting up to 30 s for the worker to send (capture) it. */
export async function waitForCapture(baseUrl: string, query: string): Promise<Captured> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const [latest] = await captured(baseUrl, query);
    if (latest) return latest;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`nothing captured for ${query} within 30 s`);
}
