import { render, screen } from '@testing-library/react';
import i18next, { type TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';
import alarmSettings from '../../../locales/en-US/alarmSettings.json';
import report from '../../../locales/en-US/report.json';
import zhReport from '../../../locales/zh-CN/report.json';
import { deductionLines, gradeColumn } from '../GradeCell';

async function translator(lng: string): Promise<TFunction> {
  const i18n = i18next.createInstance();
  await i18n.init({ lng, resources: { 'en-US': { report, alarmSettings }, 'zh-CN': { report: zhReport, alarmSettings } },
    interpolation: { escapeValue: false } });
  return i18n.t;
}

const deductions = [{ key: 'a1', count: 2, minutes: 4, points: 6 }, { key: 'adas_1', count: 1, minutes: 0, points: 8.5 }];

describe('the driving-behaviour score cell', () => {
  it('names each deduction by its alarm, the largest first', async () => {
    const t = await translator('en-US');
    expect(deductionLines(t, deductions)).toEqual(['Forward collision warning × 1: −8.5', 'Overspeed alarm × 2: −6']);
    expect(deductionLines(t, null)).toEqual([]);
  });

  it('reads in zh-CN', async () => {
    const t = await translator('zh-CN');
    expect(deductionLines(t, [deductions[0]])[0]).toBe('Overspeed alarm × 2：扣 6 分');
  });

  it('shows the score with its grade, and nothing for a day without a score', async () => {
    const t = await translator('en-US');
    const column = gradeColumn(t);
    render(<>{column.render(89, { gradeScore: 89, grade: 'B', gradeDeductions: deductions })}</>);
    expect(screen.getByTestId('grade-score').textContent).toBe('89 (B)');
    expect(column.render(null, {})).toBe('');
  });
});
