/**
 * The inspection pop-up (JT/T 809 查岗, platform-spec §2 inspectMessage): every signed-in operator holding the
 * `superior` action on superiorPlatform sees an inspection of the enterprise as it arrives (push 16) or, when
 * it arrived while nobody was signed in, at sign-in (the open ones are read then). The dialog shows the
 * question and a countdown to its deadline and takes the answer (sent back as 0x1301 by the link service).
 * Closed unanswered, it stays on a badge until answered. In its last 20 % (at least its last 60 s) it is
 * alarmed: a red pulsing dialog and badge and the alarm voice once. Past its deadline it cannot be answered.
 */
import { App, Badge, Button, Input, Modal, Space, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { can } from '../../auth/access';
import { useSession } from '../../auth/useSession';
import type { LiveHub } from '../../live/LiveHub';
import { useLiveHub } from '../../live/useLiveHub';
import { speak } from '../alarm/speech';
import { answerInspection, fetchOpenInspections } from './api';
import { formatCountdown, inspectionOf, inspectionPush, isAlarmed, isExpired, remainingMs, withInspection, type Inspection } from './inspection';
import './exchange.css';

const TICK_MS = 1000;

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return undefined;
    const timer = window.setInterval(() => setNow(Date.now()), TICK_MS);
    return () => window.clearInterval(timer);
  }, [active]);
  return now;
}

export default function InspectionPopup() {
  const { user } = useSession();
  const hub = useLiveHub();
  const allowed = can(user?.permissions, 'superiorPlatform', 'superior');
  return allowed ? <InspectionQueue hub={hub} /> : null;
}

export function InspectionQueue({ hub }: { hub: Pick<LiveHub, 'onPush'> | null }) {
  const { t, i18n } = useTranslation('exchange');
  const { message } = App.useApp();
  const [waiting, setWaiting] = useState<Inspection[]>([]);
  const [open, setOpen] = useState(true);
  const [answer, setAnswer] = useState('');
  const [sending, setSending] = useState(false);
  const spoken = useRef(new Set<number>());
  const now = useNow(waiting.length > 0);

  useEffect(() => {
    const controller = new AbortController();
    void fetchOpenInspections(controller.signal).then((reply) => {
      if (controller.signal.aborted || reply.code !== 0 || !reply.data) return;
      const found = reply.data.list.map((row) => inspectionOf(row)).filter((i): i is Inspection => i !== null);
      setWaiting((list) => found.reduce(withInspection, list));
    });
    return () => controller.abort();
  }, []);

  useEffect(() => (hub ? hub.onPush((push) => {
    const inspection = inspectionPush(push);
    if (!inspection) return;
    setWaiting((list) => withInspection(list, inspection));
    setOpen(true);
  }) : undefined), [hub]);

  const current = waiting[0] ?? null;
  const expired = current !== null && isExpired(current, now);
  const alarmed = current !== null && isAlarmed(current, now);
  const anyAlarmed = waiting.some((i) => isAlarmed(i, now));

  useEffect(() => {
    if (!current || !alarmed || spoken.current.has(current.id)) return;
    spoken.current.add(current.id);
    speak(t('inspection.speech'), i18n.language);
  }, [alarmed, current, i18n.language, t]);

  const drop = (id: number) => {
    setWaiting((list) => list.filter((i) => i.id !== id));
    setAnswer('');
  };
  const submit = async () => {
    if (!current || !answer.trim()) return;
    setSending(true);
    const reply = await answerInspection(current.id, answer.trim());
    setSending(false);
    // answered here, by a colleague meanwhile (409), or past the deadline: either way no longer waiting
    if (reply.code === 0) void message.success(t('inspection.answered'));
    if (reply.code === 0 || reply.code === 409) drop(current.id);
  };

  if (!current) return null;
  const left = remainingMs(current, now);
  return (
    <>
      {!open && (
        <Badge count={waiting.length} className="inspection-badge" data-testid="inspection-badge">
          <Button danger={anyAlarmed} type="primary" className={anyAlarmed ? 'inspection-alarmed' : ''} onClick={() => setOpen(true)}>
            {t('inspection.waiting')}
          </Button>
        </Badge>
      )}
      <Modal
        open={open}
        title={t('inspection.title')}
        className={alarmed ? 'inspection-dialog inspection-alarmed' : 'inspection-dialog'}
        maskClosable={false}
        onCancel={() => (expired ? drop(current.id) : setOpen(false))}
        footer={expired ? [<Button key="close" onClick={() => drop(current.id)}>{t('inspection.close')}</Button>] : [
          <Button key="later" onClick={() => setOpen(false)}>{t('inspection.later')}</Button>,
          <Button key="answer" type="primary" loading={sending} disabled={!answer.trim()} onClick={() => void submit()} data-testid="inspection-submit">
            {t('inspection.submit')}
          </Button>,
        ]}
      >
        <Space direction="vertical" style={{ width: '100%' }} data-testid="inspection-dialog" data-inspection-id={current.id}
          data-alarmed={alarmed ? 'true' : 'false'}>
          <Typography.Text type="secondary">{t('inspection.from', { platform: current.platformName })}</Typography.Text>
          <Typography.Paragraph strong data-testid="inspection-question">{current.question}</Typography.Paragraph>
          {left === null ? (
            <Typography.Text>{t('inspection.noDeadline')}</Typography.Text>
          ) : expired ? (
            <Typography.Text type="danger" data-testid="inspection-expired">{t('inspection.expired')}</Typography.Text>
          ) : (
            <Typography.Text type={alarmed ? 'danger' : undefined} data-testid="inspection-countdown">
              {t('inspection.countdown', { left: formatCountdown(left) })}
            </Typography.Text>
          )}
          {!expired && (
            <Input.TextArea rows={3} maxLength={1000} value={answer} onChange={(e) => setAnswer(e.target.value)}
              placeholder={t('inspection.placeholder')} data-testid="inspection-answer" />
          )}
          {waiting.length > 1 && <Typography.Text type="secondary">{t('inspection.more', { count: waiting.length - 1 })}</Typography.Text>}
        </Space>
      </Modal>
    </>
  );
}
