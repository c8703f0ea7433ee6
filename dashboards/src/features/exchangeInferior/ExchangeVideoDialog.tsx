import { Alert, Button, DatePicker, Form, InputNumber, Modal, Radio, Select, Space, Spin } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LivePlayer } from '../video/LivePlayer';
import { fetchVideoPull, requestVideo, stopVideoPull, VIDEO_PULL_FINAL, type VideoPull, type VideoPullKind } from './api';

/** How often a waiting request is read again (the inferior asks its terminal first: seconds, not minutes), and a
 * playing one (to say so once it has ended). */
const POLL_MS = 1000;
const PLAYING_POLL_MS = 5000;
const AV_TYPES = [0, 1, 2] as const;

function stopOpen(open: VideoPull | null): void {
  if (open && !VIDEO_PULL_FINAL.includes(open.state)) void stopVideoPull(open.id);
}

export interface ExchangeVideoDialogProps {
  vehicle: { id: number; plate: string } | null;
  onClose: () => void;
}

interface Values {
  kind: VideoPullKind;
  channelId: number;
  avItemType: number;
  range?: [Dayjs, Dayjs];
}

/** A playback asks for the last 10 minutes unless the operator picks another period. */
const DEFAULT_PLAYBACK_MINUTES = 10;

/** The last ``minutes`` to this second, from one reading of the clock (0x9A01 carries whole seconds). */
function lastMinutes(minutes: number): [Dayjs, Dayjs] {
  const now = dayjs().startOf('second');
  return [now.subtract(minutes, 'minute'), now];
}

/** Live audio / video of an inferior platform's vehicle (JT/T 1078-2016 §8.2), or a recording of it (§8.5): the
 * operator picks live or playback (with its period), a channel and what to receive; fleetwatch sends the platform
 * 0x9801 (0x9A01) with its authorisation code, waits for its 0x1801 (0x1A01) and then plays the stream our media
 * server pulls from the address it named. Closing the dialog stops it (0x9802, 0x9A02 end). Test ids:
 * `exchange-video-dialog`, `exchange-video-kind`, `exchange-video-range`, `exchange-video-state` (`data-state`),
 * `live-player`. */
export default function ExchangeVideoDialog({ vehicle, onClose }: ExchangeVideoDialogProps) {
  const { t } = useTranslation('inferior');
  // a failure's reason: ours when we refused (an address outside the platform's video servers), else its RESULT
  const failure = (failed: VideoPull): string => (failed.error
    ? t(`video.errors.${failed.error}`, { address: `${failed.serverIp ?? ''}:${failed.serverPort ?? ''}`, defaultValue: failed.error })
    : t('video.result', { result: failed.result ?? '', meaning: t(`video.results.${String(failed.result)}`, { defaultValue: '' }) }));
  const [form] = Form.useForm<Values>();
  const [pull, setPull] = useState<VideoPull | null>(null);
  const [asking, setAsking] = useState(false);
  const current = useRef<VideoPull | null>(null);
  useEffect(() => { current.current = pull; }, [pull]);

  // A request is read again until it is over: every second while it waits, every 5 s while it plays.
  const waitingId = pull && !VIDEO_PULL_FINAL.includes(pull.state) ? pull.id : null;
  const every = pull?.state === 'playing' ? PLAYING_POLL_MS : POLL_MS;
  useEffect(() => {
    if (waitingId === null) return undefined;
    const controller = new AbortController();
    const timer = setInterval(() => {
      void fetchVideoPull(waitingId, controller.signal).then((reply) => {
        if (reply.code === 0 && reply.data) setPull(reply.data);
      });
    }, every);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [waitingId, every]);

  // Leaving (the dialog closed, the page left) stops what is still open: 0x9802 once its stream is gone.
  useEffect(() => () => stopOpen(current.current), []);
  const stop = () => stopOpen(current.current);

  const ask = async () => {
    if (!vehicle) return;
    const values = await form.validateFields();
    stop();
    setAsking(true);
    try {
      const period = values.kind === 'playback' && values.range
        ? { startTime: values.range[0].toISOString(), endTime: values.range[1].toISOString() } : {};
      const reply = await requestVideo(vehicle.id, { kind: values.kind, channelId: values.channelId,
        avItemType: values.avItemType, ...period });
      if (reply.code === 0 && reply.data) {
        const read = await fetchVideoPull(reply.data.id);
        if (read.code === 0 && read.data) setPull(read.data);
      }
    } finally {
      setAsking(false);
    }
  };

  const close = () => {
    stop();
    setPull(null);
    onClose();
  };

  const playing = pull?.state === 'playing' && pull.wsUrl && pull.flvUrl && pull.streamId ? pull : null;
  return (
    <Modal open={vehicle !== null} title={t('video.title', { plate: vehicle?.plate ?? '' })} onCancel={close}
      footer={null} width={720} destroyOnHidden>
      <div data-testid="exchange-video-dialog">
        <Form form={form} layout="inline" onFinish={() => void ask()} initialValues={{
          kind: 'live', channelId: 1, avItemType: 0,
          range: lastMinutes(DEFAULT_PLAYBACK_MINUTES) }}>
          <Form.Item name="kind">
            <Radio.Group optionType="button" data-testid="exchange-video-kind"
              options={(['live', 'playback'] as const).map((value) => ({ value, label: t(`video.kind.${value}`) }))} />
          </Form.Item>
          <Form.Item name="channelId" label={t('video.channel')} rules={[{ required: true }]}>
            <InputNumber min={1} max={255} precision={0} data-testid="exchange-video-channel" />
          </Form.Item>
          <Form.Item name="avItemType" label={t('video.avItemType')}>
            <Select style={{ width: 140 }} data-testid="exchange-video-av"
              options={AV_TYPES.map((value) => ({ value, label: t(`video.av.${value}`) }))} />
          </Form.Item>
          <Form.Item noStyle shouldUpdate={(before, after) => before.kind !== after.kind}>
            {({ getFieldValue }) => getFieldValue('kind') === 'playback' && (
              <Form.Item name="range" label={t('video.range')} style={{ marginTop: 8 }}
                rules={[{ required: true, message: t('video.rangeRequired') }]}>
                <DatePicker.RangePicker showTime data-testid="exchange-video-range" />
              </Form.Item>
            )}
          </Form.Item>
          <Form.Item>
            <Button type="primary" htmlType="submit" loading={asking} data-testid="exchange-video-request">
              {t('video.request')}
            </Button>
          </Form.Item>
        </Form>
        {pull && (
          <div data-testid="exchange-video-state" data-state={pull.state} style={{ marginTop: 16 }}>
            {(pull.state === 'queued' || pull.state === 'sent') && (
              <Space><Spin size="small" />{t(`video.state.${pull.state}`)}</Space>
            )}
            {pull.state === 'failed' && (
              <Alert type="error" showIcon message={t('video.state.failed')}
                description={failure(pull)} />
            )}
            {pull.state === 'expired' && <Alert type="warning" showIcon message={t('video.state.expired')} />}
            {pull.state === 'ended' && <Alert type="info" showIcon message={t('video.state.ended')}
              description={pull.error ? t(`video.errors.${pull.error}`, { defaultValue: '' }) : undefined} />}
          </div>
        )}
        {playing && (
          <div style={{ marginTop: 12, height: 360 }}>
            <LivePlayer
              key={playing.streamId}
              stream={{ streamId: playing.streamId as string, wsUrl: playing.wsUrl as string, flvUrl: playing.flvUrl as string,
                urlExpiresAt: playing.urlExpiresAt ?? 0, deviceSn: '', channelId: playing.channelId, kind: playing.kind,
                label: playing.plate }}
              audioOnly={playing.avItemType === 1}
              liveness={false}
              streamInfo={async () => {
                const reply = await fetchVideoPull(playing.id);
                return reply.code === 0 && reply.data?.state === 'playing' ? reply.data : null;
              }}
            />
          </div>
        )}
      </div>
    </Modal>
  );
}
