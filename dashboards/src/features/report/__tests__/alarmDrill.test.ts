import { describe, expect, it } from 'vitest';
import { ALARM_DETAIL_PATH, alarmDetailHref, parseAlarmDrill, type AlarmCell } from '../alarmDrill';

/** What the detail page reads back from the link a count cell built. */
function roundTrip(cell: AlarmCell) {
  const href = alarmDetailHref(cell);
  expect(href).not.toBeNull();
  const url = new URL(String(href), 'http://console');
  expect(url.pathname).toBe(ALARM_DETAIL_PATH);
  return parseAlarmDrill(url.searchParams);
}

describe('the alarm report\'s drill-down link', () => {
  it('carries a terminal\'s day and every alarm: the alarm query narrowed to that terminal only', () => {
    const drill = roundTrip({ deviceId: 42, startDate: 20261201, endDate: 20261201, kind: 'alarmTotal' });
    expect(drill?.query).toEqual({ 'deviceId.eq': 42 });
    expect(drill?.cell).toMatchObject({ deviceId: 42, startDate: 20261201, endDate: 20261201, kind: 'alarmTotal' });
  });

  it('counts active safety as the report does: alarm types 5 to 8', () => {
    const drill = roundTrip({ deviceId: 7, startDate: 20261130, endDate: 20261201, kind: 'activeSafety' });
    expect(drill?.query).toEqual({ 'deviceId.eq': 7, 'type.gte': 5, 'type.lte': 8 });
  });

  it('narrows to one alarm key when the column is a key\'s counter', () => {
    const drill = roundTrip({ enterpriseId: 3, startDate: 20261201, endDate: 20261201, kind: { key: 'adas_1' } });
    expect(drill?.query).toEqual({ 'enterpriseId.eq': 3, 'key.eq': 'adas_1' });
  });

  it('spans the days from the first one\'s midnight to the last one\'s end, in the browser\'s zone', () => {
    const drill = roundTrip({ enterpriseId: 3, startDate: 20261130, endDate: 20261201, kind: 'alarmTotal' });
    const [start, end] = drill?.range ?? [];
    expect(start?.format('YYYY-MM-DD HH:mm:ss.SSS')).toBe('2026-11-30 00:00:00.000');
    expect(end?.format('YYYY-MM-DD HH:mm:ss.SSS')).toBe('2026-12-01 23:59:59.999');
  });

  it('prefers the terminal when a row names both, so the list is that terminal\'s, not its enterprise\'s', () => {
    const href = alarmDetailHref({ deviceId: 42, enterpriseId: 3, startDate: 20261201, endDate: 20261201, kind: 'alarmTotal' });
    expect(href).toBe(`${ALARM_DETAIL_PATH}?deviceId=42&startDate=20261201&endDate=20261201&kind=alarmTotal`);
  });

  it('builds no link for a row without a terminal or enterprise, without a day, or with an odd key', () => {
    expect(alarmDetailHref({ deviceId: Number('x'), startDate: 20261201, endDate: 20261201, kind: 'alarmTotal' })).toBeNull();
    expect(alarmDetailHref({ deviceId: 0, enterpriseId: -1, startDate: 20261201, endDate: 20261201, kind: 'alarmTotal' })).toBeNull();
    expect(alarmDetailHref({ deviceId: 1, startDate: Number(undefined), endDate: 20261201, kind: 'alarmTotal' })).toBeNull();
    expect(alarmDetailHref({ deviceId: 1, startDate: 20261201, endDate: 20261201, kind: { key: 'a1&x=1' } })).toBeNull();
  });
});

describe('the detail page\'s reading of its URL', () => {
  const parse = (query: string) => parseAlarmDrill(new URLSearchParams(query));

  it('refuses a URL no count cell builds instead of listing every alarm', () => {
    expect(parse('startDate=20261201&endDate=20261201&kind=alarmTotal')).toBeNull(); // no terminal nor enterprise
    expect(parse('deviceId=1&startDate=20261201&endDate=20261201')).toBeNull(); // no kind
    expect(parse('deviceId=1&startDate=20261201&endDate=20261201&kind=handled')).toBeNull(); // not a kind
    expect(parse('deviceId=1&startDate=20261332&endDate=20261201&kind=alarmTotal')).toBeNull(); // no such day
    expect(parse('deviceId=1&startDate=20261202&endDate=20261201&kind=alarmTotal')).toBeNull(); // reversed
    expect(parse('deviceId=1.5&startDate=20261201&endDate=20261201&kind=alarmTotal')).toBeNull();
    expect(parse('deviceId=1&startDate=20261201&endDate=20261201&kind=key:A1')).toBeNull();
  });

  it('reads an enterprise\'s cell when no terminal is named', () => {
    expect(parse('enterpriseId=9&startDate=20261201&endDate=20261201&kind=key:a1')?.query)
      .toEqual({ 'enterpriseId.eq': 9, 'key.eq': 'a1' });
  });
});
