import { Button, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../auth/access';
import { decideRegistration } from '../features/fleet/api';

type Decision = 'approve' | 'refuse';

/**
 * Approve / refuse of a re-registration held by the enterprise's policy (security notice
 * reregistration_pending). Approve lets the terminal's next registration through and closes the old
 * session; refuse keeps it out. Each request is decided once; a failure shows the server's reason.
 */
export default function RegistrationDecision({ deviceId, requestId }: { deviceId: number; requestId: number }) {
  const { t } = useTranslation('layout');
  const canDecide = useAccess().can('device', 'update');
  const [busy, setBusy] = useState<Decision | null>(null);
  const [done, setDone] = useState<Decision | null>(null);
  if (!canDecide) return null;
  if (done) {
    return (
      <Typography.Text type="secondary" style={{ display: 'block', marginTop: 8 }} data-testid="registration-decided">
        {t(done === 'approve' ? 'security.approved' : 'security.refused')}
      </Typography.Text>
    );
  }
  const decide = async (decision: Decision) => {
    setBusy(decision);
    try {
      const reply = await decideRegistration(deviceId, requestId, decision);
      if (reply.code === 0) setDone(decision);
    } finally {
      setBusy(null);
    }
  };
  return (
    <Space style={{ display: 'flex', marginTop: 8 }}>
      <Button size="small" type="primary" loading={busy === 'approve'} disabled={busy !== null}
        onClick={() => void decide('approve')} data-testid="registration-approve">
        {t('security.approve')}
      </Button>
      <Button size="small" danger loading={busy === 'refuse'} disabled={busy !== null}
        onClick={() => void decide('refuse')} data-testid="registration-refuse">
        {t('security.refuse')}
      </Button>
    </Space>
  );
}
