import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import { session } from '../../../auth/session';
import KpiSummary from '../KpiSummary';

const ok = (data: unknown) => new Response(JSON.stringify({ code: 0, message: 'ok', data }), { status: 200, headers: { 'Content-Type': 'application/json' } });

beforeEach(() => {
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  vi.stubGlobal('fetch', vi.fn(async (url: string) => {
    if (url.startsWith('/api/report/kpi/enterprise.json')) {
      return ok({ summary: { completenessRate: 0.9954, completeKm: 316.6000000000058, totalKm: 318.05999999999995,
        qualificationRate: 0.5, qualifiedPoints: 1, totalPoints: 2 }, list: [] });
    }
    return ok({ list: [], total: 0, pageNo: 1, pageSize: 1000 });
  }));
});

afterEach(() => {
  session.clear();
  vi.unstubAllGlobals();
});

describe('the KPI cards', () => {
  test('show the counts under a ratio rounded as the tables show kilometres, never a long float', async () => {
    render(<KpiSummary view={{ body: { 'date.gte': 20261101, 'date.lte': 20261130 }, params: {}, rows: [], total: 0 }} />);
    await waitFor(() => expect(screen.getByTestId('kpi-completenessRate').textContent).toBe('99.54%'));
    const card = screen.getByTestId('kpi-summary');
    await waitFor(() => expect(card.textContent).toContain('316.6 / '));
    expect(card.textContent).toContain('318.06');
    expect(card.textContent).not.toMatch(/\d\.\d{3,}/);
  });
});
