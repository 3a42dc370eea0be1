// A real OpenID provider for the single sign-on tests (docs/sso.md): oidc-provider, the certified Node
// implementation, on a loopback port of its own, with one confidential client whose redirect URI is Sigil's
// /sso/callback. Its interaction is either made by hand without a page (`signInAs` decides whose account the
// next sign-in is: the integration tests) or its own development pages (devInteractions: the browser test).
// `follow` walks a started sign-in through the provider by hand, as a browser would, to the redirect URI.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The accounts the provider knows, by `sub`; `signInAs` adds one. */
  accounts: Map<string, TestAccount>;
  /** Whose account the next sign-in without pages is (the interaction signs it in and consents). */
  signInAs(account: Omit<TestAccount, 'sub'> & { sub?: string }): TestAccount;
  /**
   * Follows an authorization URL through the provider by hand (cookies kept, redirects followed one by one)
   * until it sends the browser to `redirectUri`; answers that URL (code, state, iss).
   */
  follow(authorizationUrl: string, redirectUri: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startTestProvider(options: {
  redirectUri: string;
  /** The provider's own login and consent pages instead of the page-less interaction. */
  devInteractions?: boolean;
}): Promise<TestProvider> {
  let handler: (request: IncomingMessage, response: ServerResponse) => void = (_, response) => response.end();
  const server: Server = createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = `sigil-${randomUUID().slice(0, 8)}`;
  const clientSecret = `secret-${randomUUID()}-${randomUUID()}`;
  const accounts = new Map<string, TestAccount>();
  let current: TestAccount | null = null;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    features: { devInteractions: { enabled: options.devInteractions === true } },
    cookies: { keys: [randomUUID()] },
    ttl: { IdToken: 60, AccessToken: 60, AuthorizationCode: 60, Interaction: 600, Session: 600, Grant: 600 },
    async findAccount(_ctx, sub) {
      // With the provider's own pages, whatever login is typed is an account at the address typed.
      const account: TestAccount | null =
        accounts.get(sub) ?? (options.devInteractions ? { sub, email: sub, email_verified: true } : null);
      if (!account) return undefined;
      return {
        accountId: sub,
        async claims() {
          return { sub, email: account.email, email_verified: account.email_verified, name: account.name };
        },
      };
    },
    ...(options.devInteractions
      ? {}
      : { interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` } }),
  });
  const callback = provider.callback();
  handler = (request, response) => {
    const match = /^\/interaction\/([^/?]+)/.exec(request.url ?? '');
    if (!match || options.devInteractions) {
      callback(request, response);
      return;
    }
    interact(request, response).catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  };

  /** The page-less interaction: signs `current` in, then consents to what the client asked. */
  async function interact(request: IncomingMessage, response: ServerResponse) {
    const details = await provider.interactionDetails(request, response);
    if (details.prompt.name === 'login') {
      if (!current) throw new Error('signInAs was not called before the sign-in');
      await provider.interactionFinished(
        request,
        response,
        { login: { accountId: current.sub } },
        {
          mergeWithLastSubmission: false,
        },
      );
      return;
    }
    const grant = new provider.Grant({ accountId: details.session?.accountId ?? '', clientId });
    grant.addOIDCScope('openid email profile');
    const grantId = await grant.save();
    await provider.interactionFinished(
      request,
      response,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signInAs(account) {
      const full = { sub: account.sub ?? randomUUID(), ...account } as TestAccount;
      accounts.set(full.sub, full);
      current = full;
      return full;
    },
    async follow(authorizationUrl, redirectUri) {
      const cookies = new Map<string, string>();
      let url = new URL(authorizationUrl);
      for (let hop = 0; hop < 10; hop += 1) {
        const answer = await fetch(url, {
          redirect: 'manual',
          headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
        });
        for (const set of answer.headers.getSetCookie()) {
          const [pair] = set.split(';');
          const at = pair?.indexOf('=') ?? -1;
          if (pair && at > 0) cookies.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const location = answer.headers.get('location');
        if (!location)
          throw new Error(
            `the provider answered ${answer.status} without a redirect: ${await answer.text()}`,
          );
        url = new URL(location, url);
        if (url.href.startsWith(redirectUri)) return url;
      }
      throw new Error('the provider did not send the browser back within 10 redirects');
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
