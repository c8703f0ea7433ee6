import { describe, expect, it } from 'vitest';
import { alarmBitNames, truncateAlarm } from './format';

describe('track point alarm text', () => {
  it('keeps texts of 35 characters or fewer', () => {
    const text = '超速报警,疲劳驾驶报警';
    expect(truncateAlarm(text)).toBe(text);
    const exact = 'x'.repeat(35);
    expect(truncateAlarm(exact)).toBe(exact);
  });

  it('cuts longer texts to 35 characters plus an ellipsis', () => {
    const long = '紧急报警,超速报警,疲劳驾驶报警,危险驾驶行为报警,GNSS模块故障,GNSS天线未接或被剪断';
    const cut = truncateAlarm(long);
    expect(cut.endsWith('…')).toBe(true);
    expect(Array.from(cut.slice(0, -1))).toHaveLength(35);
    expect(long.startsWith(cut.slice(0, -1))).toBe(true);
  });

  it('names every set alarm bit including bit 31', () => {
    const t = (key: string) => key.replace('alarmBits.', 'b');
    expect(alarmBitNames(0, t)).toEqual([]);
    expect(alarmBitNames(0b11, t)).toEqual(['b0', 'b1']);
    expect(alarmBitNames(2 ** 31 + 4, t)).toEqual(['b2', 'b31']);
  });
});
