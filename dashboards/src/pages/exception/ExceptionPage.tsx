import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { indexUrl } from '../../router/paths';

export type ExceptionStatus = '403' | '404' | '500';

export default function ExceptionPage({ status }: { status: ExceptionStatus }) {
  const { t } = useTranslation('exception');
  const navigate = useNavigate();
  return (
    <Result
      status={status}
      title={status}
      subTitle={t(`${status}.description`)}
      data-testid={`exception-${status}`}
      extra={
        <Button type="primary" onClick={() => navigate(indexUrl())}>
          {t('backHome')}
        </Button>
      }
    />
  );
}
