// A local HTTP server standing in for Twilio's REST API (node:http, nothing from Twilio): it records every
// request exactly as it arrives — method, path, headers, the form body — and answers like Twilio's Messages
// resource, or with whatever status the test sets.
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface TwilioRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body and its parsed form fields. */
  rawBody: string;
  form: Record<string, string>;
}

export interface TwilioAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface TwilioStandIn {
  baseUrl: string;
  requests: TwilioRequest[];
  /** Answers the next requests with these, in order; afterwards (or when empty) a created message. */
  answerNext(...answers: TwilioAnswer[]): void;
  /**
   * Runs `hook` with the next created message's request and SID before answering it (what Twilio does meanwhile:
   * a quick status callback, say); the answer waits for the hook.
   */
  beforeNextAnswer(hook: (request: TwilioRequest, sid: string) => Promise<void>): void;
  close(): Promise<void>;
}

export const TWILIO_SERVER_ERROR: TwilioAnswer = {
  status: 500,
  body: {
    code: 20500,
    message: 'Internal Server Error',
    more_info: 'https://www.twilio.com/docs/errors/20500',
    status: 500,
  },
};

export const TWILIO_INVALID_NUMBER: TwilioAnswer = {
  status: 400,
  body: {
    code: 21211,
    message: "The 'To' number is not a valid phone number.",
    more_info: 'https://www.twilio.com/docs/errors/21211',
    status: 400,
  },
};

export async function startTwilioStandIn(): Promise<TwilioStandIn> {
  const requests: TwilioRequest[] = [];
  const queued: TwilioAnswer[] = [];
  const hooks: Array<(request: TwilioRequest, sid: string) => Promise<void>> = [];
  let counter = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const form = Object.fromEntries(new URLSearchParams(rawBody));
      const recorded: TwilioRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        rawBody,
        form,
      };
      requests.push(recorded);
      counter += 1;
      const sid = `SM${counter.toString(16).padStart(32, '0')}`;
      const refused = queued.shift();
      const hook = refused ? undefined : hooks.shift();
      if (hook) await hook(recorded, sid);
      const answer = refused ?? {
        status: 201,
        body: {
          sid,
          status: 'queued',
          to: form.To,
          from: form.From ?? null,
          body: form.Body,
          num_segments: '1',
          direction: 'outbound-api',
          date_created: new Date().toUTCString(),
        },
      };
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    answerNext(...answers) {
      queued.push(...answers);
    },
    beforeNextAnswer(hook) {
      hooks.push(hook);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
