/** The driver's recent driving-behaviour scores on the driver detail page (drivingGradeRule): per report day
 * the score, its grade and the deductions behind it. */
import { Table } from 'antd';
import { useTranslation } from 'react-i18next';
import { deductionLines } from '../report/GradeCell';
import type { DriverGrade } from './api';

const dayText = (date: number) => {
  const s = String(date);
  return `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}`;
};

export default function GradeTable({ grades }: { grades: DriverGrade[] }) {
  const { t } = useTranslation('fleet');
  return (
    <Table<DriverGrade> size="small" rowKey="date" pagination={false} dataSource={grades}
      data-testid="driver-detail-grades"
      columns={[
        { key: 'date', title: t('driverDetail.grades.date'), render: (_, row) => dayText(row.date) },
        { key: 'gradeScore', title: t('driverDetail.grades.score'),
          render: (_, row) => <span data-testid="driver-detail-grade-score" data-date={row.date}>{row.gradeScore}</span> },
        { key: 'grade', title: t('driverDetail.grades.grade'), dataIndex: 'grade' },
        { key: 'deductions', title: t('driverDetail.grades.deductions'),
          render: (_, row) => deductionLines(t, row.gradeDeductions).join('; ') || t('report:grade.noDeductions') },
      ]} />
  );
}
