// @vitest-environment jsdom
import { afterEach, describe, expect, test, vi } from 'vitest';

/** console-spec §7 "General": under authorization protocol 2 the token call carries the console's client
 * credentials as HTTP Basic (config.ts AUTH_CLIENT: named by the serving API in index.html, else given at build
 * time); without them it carries none. */
const ok = () => new Response(JSON.stringify({ code: 0, message: 'ok', data: { access_token: 'a', refresh_token: 'r', expires_in: 3600 } }),
  { status: 200, headers: { 'Content-Type': 'application/json' } });

async function tokenCallHeaders(call: 'password' | 'refresh'): Promise<Headers> {
  const fetchMock = vi.fn(async (_url: string, _init?: RequestInit) => ok());
  vi.stubGlobal('fetch', fetchMock);
  vi.resetModules(); // config.ts reads the build's env once, as it loads
  const api = await import('../authApi');
  await (call === 'password' ? api.passwordGrant('ops', 'pw') : api.refreshGrant('r'));
  const [url, init] = fetchMock.mock.calls[0];
  expect(url.startsWith('/oauth2/token.json?')).toBe(true);
  return new Headers(init?.headers);
}

describe('the token calls and the console\'s client credentials', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.unstubAllGlobals();
    document.head.querySelectorAll('meta[name^="fleetwatch:"]').forEach((meta) => meta.remove());
  });

  const serve = (id: string, secret: string) => {
    for (const [name, content] of [['client-id', id], ['client-secret', secret]]) {
      const meta = document.createElement('meta');
      meta.name = `fleetwatch:${name}`;
      meta.content = content;
      document.head.append(meta);
    }
  };
  const basic = (id: string, secret: string) => `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${id}:${secret}`)))}`;

  test.each(['password', 'refresh'] as const)('a console built with them sends them on the %s grant', async (call) => {
    vi.stubEnv('VITE_AUTH_CLIENT_ID', 'fw_console');
    vi.stubEnv('VITE_AUTH_CLIENT_SECRET', 'sécret');
    const headers = await tokenCallHeaders(call);
    expect(headers.get('Authorization')).toBe(basic('fw_console', 'sécret'));
  });

  test.each(['password', 'refresh'] as const)('the credentials the serving API names win over the build\'s on the %s grant', async (call) => {
    vi.stubEnv('VITE_AUTH_CLIENT_ID', 'fw_built');
    vi.stubEnv('VITE_AUTH_CLIENT_SECRET', 'built');
    serve('fw_served', 'served:sécret');
    const headers = await tokenCallHeaders(call);
    expect(headers.get('Authorization')).toBe(basic('fw_served', 'served:sécret'));
  });

  test('a console built without them sends no client credentials', async () => {
    vi.stubEnv('VITE_AUTH_CLIENT_ID', '');
    const headers = await tokenCallHeaders('password');
    expect(headers.get('Authorization') ?? '').not.toMatch(/^Basic /);
  });
});
