import { Alert, Card, Descriptions, Progress, Space, Spin, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { fetchLicenceStatus, type LicenceStatus } from '../../features/licence/api';

type State = 'community' | 'valid' | 'expiring' | 'expired';
const STATE_COLOURS: Record<State, string> = { community: 'blue', valid: 'green', expiring: 'orange', expired: 'red' };

function stateOf(status: LicenceStatus): State {
  if (status.community) return 'community';
  if (status.expired) return 'expired';
  return status.expiring ? 'expiring' : 'valid';
}

/** Platform-spec §2 settings "license": the installation's licence at a glance (its state, vehicles licensed and in
 * use, the expiry with the warning window of the platform parameter licenceWarningDays, the machine code) and the
 * way to the licence's own screens: licenseDetail shows and installs it, licenseLog and licenseApply keep its
 * history and applications, /user/license applies for one. */
export default function LicenceOverviewScreen() {
  const { t } = useTranslation('settings');
  const [status, setStatus] = useState<LicenceStatus | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void fetchLicenceStatus(controller.signal).then((reply) => {
      if (!controller.signal.aborted && reply.code === 0) setStatus(reply.data);
    });
    return () => controller.abort();
  }, []);
  if (!status) return <Spin style={{ display: 'block', margin: 48 }} />;

  const state = stateOf(status);
  const allowed = status.vehiclesAllowed;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="licence-overview">
      {state === 'expiring' && <Alert type="warning" showIcon data-testid="licence-overview-warning"
        title={t('licenseOverview.expiringWarning', { days: status.daysLeft, window: status.warningDays })} />}
      {state === 'expired' && <Alert type="error" showIcon title={t('license.expired')} />}
      <Card title={t('licenseOverview.title')} size="small">
        <Descriptions bordered size="small" column={1} items={[
          { key: 'state', label: t('licenseOverview.state'), children: <Tag color={STATE_COLOURS[state]} data-testid="licence-overview-state">{t(`licenseOverview.states.${state}`)}</Tag> },
          { key: 'usage', label: t('license.vehiclesUsed'), children: (
            <Space orientation="vertical" style={{ width: '100%' }}>
              <span data-testid="licence-overview-usage">{status.vehiclesUsed} / {allowed ?? t('license.unlimited')}</span>
              {allowed ? <Progress percent={Math.min(100, Math.round((status.vehiclesUsed / allowed) * 100))} /> : null}
            </Space>
          ) },
          { key: 'validTo', label: t('license.validTo'), children: <span data-testid="licence-overview-valid-to">{status.licence?.validTo ?? '-'}</span> },
          { key: 'daysLeft', label: t('license.daysLeft'), children: <span data-testid="licence-overview-days-left">{status.daysLeft ?? '-'}</span> },
          { key: 'window', label: t('licenseOverview.warningWindow'), children: <span data-testid="licence-overview-window">{t('licenseOverview.days', { count: status.warningDays })}</span> },
          { key: 'machineCode', label: t('license.machineCode'), children: <code data-testid="licence-overview-machine-code">{status.machineCode}</code> },
        ]} />
      </Card>
      <Card title={t('licenseOverview.links')} size="small">
        <Space size="large" wrap>
          <Link to="/settings/licenseDetail" data-testid="licence-link-detail">{t('licenseOverview.toDetail')}</Link>
          <Link to="/settings/licenseLog" data-testid="licence-link-log">{t('licenseOverview.toLog')}</Link>
          <Link to="/settings/licenseApply" data-testid="licence-link-applications">{t('licenseOverview.toApplications')}</Link>
          <Link to="/user/license" data-testid="licence-link-apply">{t('licenseOverview.toApply')}</Link>
        </Space>
      </Card>
    </Space>
  );
}
