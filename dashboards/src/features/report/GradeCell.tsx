/** The driving-behaviour score of a report row (pipelines/grading.py, platform-spec §2 drivingGradeRule):
 * "score (grade)", the deductions behind it on hover; the export keeps the score (a rendered element exports
 * the field's text, features/list/exporter.ts). */
import { Tooltip } from 'antd';
import type { TFunction } from 'i18next';
import type { ListRecord } from '../list/types';
import { alarmName } from './charts/loaders';

export interface GradeDeduction {
  key: string;
  count: number;
  minutes: number;
  points: number;
}

/** The breakdown lines ("Overspeed alarm × 2: −6"), the largest deduction first. */
export function deductionLines(t: TFunction, deductions: unknown): string[] {
  if (!Array.isArray(deductions)) return [];
  return [...(deductions as GradeDeduction[])].sort((a, b) => b.points - a.points)
    .map((d) => t('report:grade.deduction', { name: alarmName(t, d.key), count: d.count, points: d.points }));
}

export function gradeColumn(t: TFunction) {
  return {
    field: 'gradeScore',
    title: t('report:fields.gradeScore'),
    render: (value: unknown, record: ListRecord) => {
      if (value === null || value === undefined) return '';
      const lines = deductionLines(t, record.gradeDeductions);
      const text = `${Number(value)} (${String(record.grade ?? '')})`;
      const title = lines.length ? lines.map((l) => <div key={l}>{l}</div>) : t('report:grade.noDeductions');
      return <Tooltip title={title}><span data-testid="grade-score" data-score={Number(value)}>{text}</span></Tooltip>;
    },
  };
}
