import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, test, vi, type Mock } from 'vitest';
import i18n from '../../../i18n';
import { session } from '../../../auth/session';
import type { Permission } from '../../../auth/types';
import AppProviders from '../../../components/AppProviders';
import { SettingsProvider } from '../../../layouts/settings/SettingsContext';
import GradeBandsCard from '../GradeBandsCard';

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
const ok = (data: unknown) => json({ code: 0, message: 'ok', data });

const TREE = [{ id: 1, shortName: '示范物流', type: 1, state: 1, children: [
  { id: 7, shortName: '示范一分公司', type: 1, state: 1, children: [] }] }];
const PLATFORM = [{ grade: 'A', minScore: 90 }, { grade: 'B', minScore: 80 }, { grade: 'C', minScore: 60 }, { grade: 'D', minScore: 0 }];
const INHERITED = { enterpriseId: 7, grades: [{ grade: '优', minScore: 95 }, { grade: '差', minScore: 0 }], source: 'inherited',
  sourceEnterpriseId: 1, entryId: null };

let subsidiaryUser = false;
let fetchMock: Mock<(url: string, init?: RequestInit) => Promise<Response>>;

function signIn(permissions: Permission[]) {
  session.setToken({ access_token: 'tok', refresh_token: 'r', expires_in: 3600 });
  session.setUser({ id: 1, userName: 'ops', permissions, routes: [] });
}

const bandTexts = () => screen.getAllByTestId('grade-band').map((tag) => tag.textContent);

describe('the grade bands card of the driving grade rules', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('zh-CN');
    fetchMock = vi.fn(async (url: string) => {
      if (url.startsWith('/api/aas/subsidiary.json')) return ok(subsidiaryUser ? [TREE[0].children[0]] : TREE);
      if (url.startsWith('/api/drivingGradeRule/bands.json')) {
        return ok(subsidiaryUser ? INHERITED : { enterpriseId: 1, grades: PLATFORM, source: 'system', sourceEnterpriseId: null, entryId: null });
      }
      if (url.startsWith('/api/common/dictionary.json')) return ok({ id: 41 });
      return ok(null);
    });
    vi.stubGlobal('fetch', fetchMock);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    session.clear();
  });

  test('shows the bands in effect and where they come from, in the user\'s language', async () => {
    subsidiaryUser = false;
    signIn([{ code: 'drivingGradeRule', actions: ['query'] }]);
    render(<SettingsProvider><AppProviders><GradeBandsCard /></AppProviders></SettingsProvider>);
    await waitFor(() => expect(bandTexts()).toEqual(['A：≥ 90 分', 'B：≥ 80 分', 'C：≥ 60 分', 'D：≥ 0 分']));
    expect(screen.getByTestId('grade-bands-source').textContent).toBe('平台设置（系统字典）');
    expect(screen.queryByTestId('grade-bands-edit')).toBeNull(); // no right to keep dictionary entries
    await i18n.changeLanguage('en-US');
    await waitFor(() => expect(screen.getByTestId('grade-bands-source').textContent).toBe('Platform setting (system dictionary)'));
  });

  test('a subsidiary\'s inherited bands become its own entry, highest first, when saved', async () => {
    subsidiaryUser = true; // its tree does not name the parent whose bands it follows
    signIn([{ code: 'drivingGradeRule', actions: ['query'] }, { code: 'dictionary', actions: ['add', 'update', 'delete'] }]);
    render(<SettingsProvider><AppProviders><GradeBandsCard /></AppProviders></SettingsProvider>);
    await waitFor(() => expect(screen.getByTestId('grade-bands-source').textContent).toBe('继承自上级企业'));
    expect(screen.queryByTestId('grade-bands-reset')).toBeNull(); // nothing of its own to delete
    fireEvent.click(screen.getByTestId('grade-bands-edit'));
    const grade = await screen.findByTestId('grade-band-grade-1');
    fireEvent.change(grade.tagName === 'INPUT' ? grade : grade.querySelector('input')!, { target: { value: '合格' } });
    fireEvent.click(screen.getByTestId('grade-bands-save'));
    await waitFor(() => expect(fetchMock.mock.calls.some(([url]) => url.startsWith('/api/common/dictionary.json'))).toBe(true));
    const [, init] = fetchMock.mock.calls.find(([url]) => url.startsWith('/api/common/dictionary.json'))!;
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    expect(body).toMatchObject({ type: 50, code: 'driving_behavior_grade', enterpriseId: 7 });
    expect(JSON.parse(String(body.content))).toEqual({ grades: [{ grade: '优', minScore: 95 }, { grade: '合格', minScore: 0 }] });
  });
});
