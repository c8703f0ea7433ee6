/**
 * The two-way call dialog (console-spec §2: "与【plate】进行通话", end-call button "结束通话"): starts
 * the talk when opened, shows where the session is (microphone, command, connecting, talking), plays
 * the terminal's audio, and stops on "结束通话" or close. Every talk message of §8 as a notice.
 * Test ids: `talk-dialog` (`data-status`, `data-frames`), `talk-status`, `talk-stop`, `talk-restart`.
 */
import { App, Button, Modal, Result, Spin, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { StreamStart } from './api';
import { talkChannelOf } from './channelTree';
import { LivePlayer } from './LivePlayer';
import type { TalkMessage, TalkStatus } from './talkModel';
import { TalkSessionController, type TalkTarget } from './talkSession';

export type { TalkTarget } from './talkSession';

const FAILURES_AS_ERROR: readonly string[] = ['answerTimeout', 'serverConnect', 'noTalkServer', 'startError'];

interface Props {
  target: TalkTarget;
  talkChannel?: string | null;
  videoChannel?: string | null;
  onClose: () => void;
}

export function TalkDialog({ target, talkChannel = null, videoChannel = null, onClose }: Props) {
  const { t } = useTranslation('video');
  const { message } = App.useApp();
  const [status, setStatus] = useState<TalkStatus>('idle');
  const [failure, setFailure] = useState<TalkMessage | null>(null);
  const [player, setPlayer] = useState<StreamStart | null>(null);
  const [frames, setFrames] = useState(0);
  const [attempt, setAttempt] = useState(0);
  const session = useRef<TalkSessionController | null>(null);
  const channelId = target.channelId ?? talkChannelOf({ talkChannel, videoChannel });

  // The notices read the current translation through a ref: a namespace finishing loading changes
  // `t`, and that must not restart the call.
  const notify = useRef<(key: TalkMessage) => void>(() => undefined);
  useEffect(() => {
    notify.current = (key) => {
      const text = t(`talk.${key}`);
      const content = <span data-testid="talk-notice">{text}</span>;
      if (key === 'speak') void message.info({ content, key: 'talk' });
      else if (key === 'ended') void message.success({ content, key: 'talk' });
      else if (FAILURES_AS_ERROR.includes(key)) void message.error({ content, key: 'talk', duration: 6 });
      else void message.warning({ content, key: 'talk', duration: 6 });
    };
  });

  useEffect(() => {
    const controller = new TalkSessionController(target, channelId, {
      state: (state) => {
        setStatus(state.status);
        if (state.status === 'failed') setFailure(state.message);
      },
      message: (key) => notify.current(key),
      player: setPlayer,
    });
    session.current = controller;
    controller.start();
    const counter = setInterval(() => setFrames(controller.framesSent), 500);
    return () => {
      clearInterval(counter);
      controller.stop();
    };
  }, [target, channelId, attempt]);

  const live = status === 'microphone' || status === 'commanding' || status === 'connecting' || status === 'talking';
  let body;
  if (status === 'talking') {
    body = <Result status="success" title={<span data-testid="talk-status">{t('talk.speak')}</span>} subTitle={t('talk.channel', { n: channelId })} />;
  } else if (status === 'failed') {
    body = <Result status="warning" title={<span data-testid="talk-status">{failure && failure !== 'refused' ? t(`talk.${failure}`) : t('talk.notStarted')}</span>} />;
  } else if (status === 'ended' || status === 'stopping') {
    body = <Result status="info" title={<span data-testid="talk-status">{t('talk.ended')}</span>} />;
  } else {
    body = (
      <div style={{ textAlign: 'center', padding: 24 }}>
        <Spin />
        <Typography.Paragraph data-testid="talk-status" style={{ marginTop: 12 }}>{t(`talk.step.${status}`)}</Typography.Paragraph>
      </div>
    );
  }

  return (
    <Modal
      open
      title={t('talk.title', { plate: target.plateNumber })}
      onCancel={onClose}
      destroyOnHidden
      mask={{ closable: false }}
      footer={[
        !live && (
          <Button key="again" data-testid="talk-restart" onClick={() => { setFailure(null); setAttempt((n) => n + 1); }}>{t('talk.again')}</Button>
        ),
        <Button key="stop" danger type="primary" data-testid="talk-stop" disabled={!live}
          onClick={() => session.current?.stop()}>{t('talk.hangUp')}</Button>,
      ]}
    >
      <div data-testid="talk-dialog" data-status={status} data-frames={frames}>
        {body}
        {player && (
          <div style={{ height: 0, overflow: 'hidden' }}>
            <LivePlayer stream={{ ...player, deviceSn: target.deviceSn, label: target.plateNumber }} muted={false} audioOnly liveness={false} />
          </div>
        )}
      </div>
    </Modal>
  );
}
