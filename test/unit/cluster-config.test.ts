// The configuration generators of `npm run cluster` (scripts/cluster/config.ts), which docker-compose.yml's files
// come from too: HAProxy's health checks and retries, its statistics CSV, SeaweedFS's S3 identities and the
// Temporal UI server's configuration. HAProxy itself checks the generated file at every cluster start
// (`haproxy -c`, test/integration/cluster.test.ts).
import { describe, expect, it } from 'vitest';
import {
  API_HEALTH_PATH,
  haproxyConfig,
  parseHaproxyStats,
  seaweedfsS3Config,
  temporalUiConfig,
} from '../../scripts/cluster/config.ts';

const apis = [
  { name: 'sigil-api-1', host: '127.0.0.1', port: 41001 },
  { name: 'sigil-api-2', host: '127.0.0.1', port: 41002 },
];

/** The lines of one section (`backend sigil-api`, …), trimmed, up to the next blank line. */
function section(config: string, header: string): string[] {
  const lines = config.split('\n');
  const start = lines.indexOf(header);
  expect(start, header).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end < 0 ? undefined : end).map((line) => line.trim());
}

describe('haproxyConfig', () => {
  it('balances the APIs with fast health checks on /api/health and retries a killed one elsewhere', () => {
    const config = haproxyConfig({ bind: '127.0.0.1:8080', apis, statsBind: '127.0.0.1:8081' });
    expect(section(config, 'frontend sigil')).toEqual([
      'bind 127.0.0.1:8080',
      'option forwardfor',
      'default_backend sigil-api',
    ]);
    const backend = section(config, 'backend sigil-api');
    expect(backend).toContain(`http-check send meth GET uri ${API_HEALTH_PATH}`);
    // A 503 (a dependency away) keeps the process in: only a process gone or hung is taken out.
    expect(backend).toContain('http-check expect rstatus ^(200|503)$');
    expect(backend).toContain('default-server inter 500ms fastinter 500ms downinter 500ms fall 2 rise 1');
    expect(backend.filter((line) => line.startsWith('server '))).toEqual([
      'server sigil-api-1 127.0.0.1:41001 check',
      'server sigil-api-2 127.0.0.1:41002 check',
    ]);
    const defaults = section(config, 'defaults');
    expect(defaults).toContain('retry-on conn-failure empty-response');
    expect(defaults).toContain('option redispatch 1');
    expect(defaults).toContain('retries 3');
    expect(section(config, 'frontend stats')).toContain('bind 127.0.0.1:8081');
    expect(config).not.toContain('resolvers');
  });

  it('takes the check interval, fall and rise asked for, and leaves the statistics page out unless asked', () => {
    const config = haproxyConfig({
      bind: '*:80',
      apis,
      checkIntervalMs: 2000,
      fall: 3,
      rise: 2,
      log: 'none',
    });
    expect(section(config, 'backend sigil-api')).toContain(
      'default-server inter 2000ms fastinter 2000ms downinter 2000ms fall 3 rise 2',
    );
    expect(config).not.toContain('frontend stats');
    expect(config).not.toContain('log ');
  });

  it('refuses no servers, a server name HAProxy would misread and a port that is not one', () => {
    expect(() => haproxyConfig({ bind: '*:80', apis: [] })).toThrow('at least one API server');
    expect(() => haproxyConfig({ bind: '*:80', apis: [{ name: 'api 1', host: 'h', port: 80 }] })).toThrow(
      'server name "api 1"',
    );
    expect(() => haproxyConfig({ bind: '*:80', apis: [{ name: 'api', host: 'h', port: 70_000 }] })).toThrow(
      'not a TCP port',
    );
  });
});

describe('parseHaproxyStats', () => {
  it("reads each proxy's and server's status from the statistics CSV", () => {
    const csv = [
      '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight',
      'sigil,FRONTEND,,,0,1,4096,3,0,0,0,0,0,,,,,OPEN,',
      'sigil-api,sigil-api-1,0,0,0,1,,2,0,0,,0,,0,0,0,0,UP,1',
      'sigil-api,sigil-api-2,0,0,0,1,,1,0,0,,0,,0,0,0,0,DOWN,1',
      'sigil-api,BACKEND,0,0,0,1,410,3,0,0,0,0,,0,0,0,0,UP,1',
      '',
    ].join('\n');
    expect(parseHaproxyStats(csv)).toEqual([
      { proxy: 'sigil', server: 'FRONTEND', status: 'OPEN' },
      { proxy: 'sigil-api', server: 'sigil-api-1', status: 'UP' },
      { proxy: 'sigil-api', server: 'sigil-api-2', status: 'DOWN' },
      { proxy: 'sigil-api', server: 'BACKEND', status: 'UP' },
    ]);
    expect(() => parseHaproxyStats('<html>not the CSV</html>')).toThrow('not an HAProxy statistics CSV');
  });
});

describe('seaweedfsS3Config and temporalUiConfig', () => {
  it("gives SeaweedFS's S3 gateway one identity per key pair with the actions Sigil's store uses", () => {
    const config = JSON.parse(
      seaweedfsS3Config([{ name: 'sigil', accessKeyId: 'AK', secretAccessKey: 'SK' }]),
    ) as unknown;
    expect(config).toEqual({
      identities: [
        {
          name: 'sigil',
          credentials: [{ accessKey: 'AK', secretKey: 'SK' }],
          actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
        },
      ],
    });
  });

  it('points the Temporal UI server at the frontend, on the address given, fetching nothing from the internet', () => {
    const config = JSON.parse(
      temporalUiConfig({
        temporalGrpcAddress: '127.0.0.1:7233',
        host: '127.0.0.1',
        port: 8233,
        defaultNamespace: 'default',
      }),
    ) as Record<string, unknown>;
    expect(config).toMatchObject({
      temporalGrpcAddress: '127.0.0.1:7233',
      host: '127.0.0.1',
      port: 8233,
      enableUi: true,
      defaultNamespace: 'default',
      disableNewsFetch: true,
      notifyOnNewVersion: false,
      auth: { enabled: false },
    });
  });
});
