import { useTranslation } from 'react-i18next';

interface Props {
  title: string;
  testId: string;
}

export default function CockpitPlaceholder({ title, testId }: Props) {
  const { t } = useTranslation('layout');
  return (
    <div
      data-testid={testId}
      style={{
        minHeight: '100vh',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        background: '#001529',
        color: '#fff',
      }}
    >
      <h1 style={{ color: '#fff' }}>{title}</h1>
      <p>{t('cockpit.comingSoon')}</p>
    </div>
  );
}
