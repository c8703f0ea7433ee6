import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, test, vi } from 'vitest';
import i18n from '../../../i18n';
import UnknownLoginsCard from '../UnknownLoginsCard';

const ok = (data: unknown) => new Response(JSON.stringify({ code: 0, message: 'ok', data }),
  { status: 200, headers: { 'Content-Type': 'application/json' } });

const PROBE = { username: 'probe01', address: '203.0.113.66', gatewayId: 'gb-1', firstAt: '2026-12-05T01:00:00+00:00',
  lastAt: '2026-12-05T01:05:00+00:00', attempts: 7 };

describe('the unknown GB/T 32960 platform logins above the inferior platforms', () => {
  afterEach(() => vi.unstubAllGlobals());

  test('lists each username and address with its attempts for the root\'s administrator', async () => {
    await i18n.changeLanguage('en-US');
    vi.stubGlobal('fetch', vi.fn(async () => ok({ visible: true, list: [PROBE] })));
    render(<UnknownLoginsCard />);
    const user = await screen.findByTestId('gb32960-unknown-login-user');
    expect(user.textContent).toBe('probe01');
    const card = screen.getByTestId('gb32960-unknown-logins');
    expect(card.textContent).toContain('Platform logins with an unknown username');
    expect(card.textContent).toContain('203.0.113.66');
    await i18n.changeLanguage('zh-CN');
  });

  test('shows nothing to a user below the root (the server answers no rows)', async () => {
    const fetchMock = vi.fn(async () => ok({ visible: false, list: [] }));
    vi.stubGlobal('fetch', fetchMock);
    const { container } = render(<UnknownLoginsCard />);
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(container.innerHTML).toBe('');
  });
});
