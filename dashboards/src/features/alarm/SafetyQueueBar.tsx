/**
 * The safety alarm dialog's queue controls (its header: place in the queue, newer / older, clear) and
 * its mute menu (its footer: this alarm's level or key for 5 / 15 / 60 minutes, and the running mutes).
 */
import { SoundOutlined } from '@ant-design/icons';
import { Button, Dropdown, Space, Typography, type MenuProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../map/popup/format';
import type { Alarm } from './api';
import { MUTE_MINUTES, muteLabel, muteValue, type Mute, type MuteBy } from './safetyQueue';

export function QueueBar({ place, count, onStep, onClear }: {
  /** 0-based place of the alarm on screen in the queue, -1 when it is not a queued one. */
  place: number;
  count: number;
  onStep: (place: number) => void;
  onClear: () => void;
}) {
  const { t } = useTranslation('alarm');
  if (count === 0) return null;
  return (
    <Space wrap size={[8, 4]} className="safety-queue-bar" data-testid="safety-queue" data-count={count} data-place={place}>
      <Typography.Text type="secondary" data-testid="safety-queue-position">
        {place >= 0 ? t('dialog.queue.position', { position: place + 1, count }) : t('dialog.queue.total', { count })}
      </Typography.Text>
      <Button size="small" disabled={place <= 0} onClick={() => onStep(Math.max(place - 1, 0))} data-testid="safety-queue-newer">
        {t('dialog.queue.newer')}
      </Button>
      <Button size="small" disabled={place >= count - 1} onClick={() => onStep(place + 1)} data-testid="safety-queue-older">
        {t('dialog.queue.older')}
      </Button>
      <Button size="small" type="link" onClick={onClear} data-testid="safety-queue-clear">{t('dialog.queue.clear')}</Button>
    </Space>
  );
}

export function MuteMenu({ alarm, mutes, onMute, onUnmute }: {
  alarm: Alarm;
  mutes: readonly Mute[];
  onMute: (by: MuteBy, value: string, minutes: number) => void;
  onUnmute: (mute: Mute) => void;
}) {
  const { t } = useTranslation('alarm');
  const group = (by: MuteBy): NonNullable<MenuProps['items']>[number] | null => {
    const value = muteValue(alarm, by);
    if (value === null) return null;
    return {
      type: 'group',
      key: by,
      label: t(by === 'level' ? 'dialog.mute.byLevel' : 'dialog.mute.byKey', { what: muteLabel(t, by, value) }),
      children: MUTE_MINUTES.map((minutes) => ({
        key: `${by}:${minutes}`,
        label: <span data-testid={`safety-mute-${by}-${minutes}`}>{t('dialog.mute.minutes', { minutes })}</span>,
        onClick: () => onMute(by, value, minutes),
      })),
    };
  };
  const running: MenuProps['items'] = mutes.length === 0 ? [] : [{
    type: 'group',
    key: 'running',
    label: t('dialog.mute.running'),
    children: mutes.map((mute) => ({
      key: `unmute:${mute.by}:${mute.value}`,
      label: (
        <span data-testid="safety-unmute">
          {t('dialog.mute.unmute', { what: muteLabel(t, mute.by, mute.value), time: formatTime(mute.untilMs) })}
        </span>
      ),
      onClick: () => onUnmute(mute),
    })),
  }];
  const items = [group('level'), group('key'), ...running].filter((item) => item !== null);
  return (
    <Dropdown menu={{ items }} trigger={['click']} placement="topLeft">
      <Button icon={<SoundOutlined />} data-testid="safety-mute" data-muting={mutes.length}>
        {mutes.length > 0 ? t('dialog.mute.buttonActive', { count: mutes.length }) : t('dialog.mute.button')}
      </Button>
    </Dropdown>
  );
}
