import { describe, expect, test } from 'vitest';
import { formatCountdown, inspectionOf, inspectionPush, isAlarmed, isExpired, remainingMs, withInspection } from '../inspection';

const received = Date.parse('2026-12-02T08:00:00Z');
const push = (data: Record<string, unknown>) => ({ type: 16, data });
const tenMinutes = inspectionOf({ inspectionId: 7, platformId: 3, platformName: '省级监管平台', question: '请报告值班人员',
  objectId: '7001', receivedAt: '2026-12-02T08:00:00Z', deadline: '2026-12-02T08:10:00Z' })!;

describe('inspections from pushes and rows', () => {
  test('push 16 carries the question, the platform and the deadline', () => {
    const found = inspectionPush(push({ inspectionId: 7, platformName: '省级监管平台', question: '请报告值班人员',
      receivedAt: '2026-12-02T08:00:00Z', deadline: '2026-12-02T08:10:00Z' }));
    expect(found).toMatchObject({ id: 7, platformName: '省级监管平台', question: '请报告值班人员', receivedAtMs: received,
      deadlineMs: received + 600_000 });
  });

  test('another push type, or a body without an id or arrival time, is not an inspection', () => {
    expect(inspectionPush({ type: 2, data: { inspectionId: 7, receivedAt: '2026-12-02T08:00:00Z' } })).toBeNull();
    expect(inspectionPush(push({ question: 'x', receivedAt: '2026-12-02T08:00:00Z' }))).toBeNull();
    expect(inspectionPush(push({ inspectionId: 7 }))).toBeNull();
    expect(inspectionPush({ type: 16, data: null })).toBeNull();
  });

  test('a row of the inspection list reads the same (id instead of inspectionId); no deadline stays null', () => {
    expect(inspectionOf({ id: 9, receivedAt: '2026-12-02T08:00:00Z', deadline: null, question: 'q' }))
      .toMatchObject({ id: 9, deadlineMs: null });
  });
});

describe('countdown, alarm and expiry', () => {
  test('ten minutes given: alarmed in the last two (20 %), expired at the deadline', () => {
    expect(remainingMs(tenMinutes, received + 60_000)).toBe(540_000);
    expect(isAlarmed(tenMinutes, received + 7 * 60_000)).toBe(false);
    expect(isAlarmed(tenMinutes, received + 8 * 60_000 + 1)).toBe(true);
    expect(isExpired(tenMinutes, received + 600_000 - 1)).toBe(false);
    expect(isExpired(tenMinutes, received + 600_000)).toBe(true);
    expect(isAlarmed(tenMinutes, received + 600_000)).toBe(false); // past: expired, not alarmed
    expect(remainingMs(tenMinutes, received + 700_000)).toBe(0);
  });

  test('a short deadline is alarmed for at least its last 60 s', () => {
    const twoMinutes = { ...tenMinutes, deadlineMs: received + 120_000 };
    expect(isAlarmed(twoMinutes, received + 59_000)).toBe(false);
    expect(isAlarmed(twoMinutes, received + 61_000)).toBe(true);
  });

  test('without a deadline it never alarms nor expires', () => {
    const open = { ...tenMinutes, deadlineMs: null };
    expect([remainingMs(open, received + 1e9), isAlarmed(open, received + 1e9), isExpired(open, received + 1e9)])
      .toEqual([null, false, false]);
  });

  test('the countdown reads mm:ss, with hours when needed, rounding up to the whole second', () => {
    expect([formatCountdown(540_000), formatCountdown(59_001), formatCountdown(0), formatCountdown(3_725_000)])
      .toEqual(['09:00', '01:00', '00:00', '1:02:05']);
  });
});

test('waiting inspections: a repeated push replaces its copy, soonest deadline first, no deadline last', () => {
  const later = { ...tenMinutes, id: 8, deadlineMs: received + 900_000 };
  const none = { ...tenMinutes, id: 9, deadlineMs: null };
  const list = [none, later, tenMinutes, { ...tenMinutes, question: '重复推送' }].reduce(withInspection, []);
  expect(list.map((i) => i.id)).toEqual([7, 8, 9]);
  expect(list[0].question).toBe('重复推送');
});
