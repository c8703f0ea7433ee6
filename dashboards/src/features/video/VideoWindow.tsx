/**
 * One window of the live video grid: the plate and channel, the player, and its buttons (main / sub
 * stream, sound, snapshot, full screen, close). Test ids: `video-window-<index>` (`data-key`,
 * `data-status`), `window-close-<index>`, `window-stream-<index>`, `window-snapshot-<index>`,
 * `window-fullscreen-<index>`, `window-mute-<index>`, `window-quality-<index>` (`data-quality` 0 stuttering,
 * 1 smooth, 2 very smooth), `window-refusal-<index>` (`data-reason`: the terminal refused the start, did
 * not answer, or sent no media; `data-status` is then `refused`).
 */
import { AudioMutedOutlined, CameraOutlined, CloseOutlined, ExpandOutlined, LoadingOutlined, SoundOutlined } from '@ant-design/icons';
import { App, Button, Space, Tooltip } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DATA_TYPE, QUALITY_LABELS, STREAM_TYPE } from './constants';
import { LivePlayer, type LivePlayerHandle } from './LivePlayer';
import type { PlayerStatus, StreamQuality } from './playerModel';
import { downloadSnapshot, snapshotName } from './snapshot';
import { NO_MEDIA_MS, type StartRefusal } from './startOutcome';
import { useStartOutcome } from './useStartOutcome';
import type { WindowSlot } from './useVideoGrid';

interface Props {
  index: number;
  slot: WindowSlot | null;
  selected: boolean;
  onSelect: () => void;
  onClose: () => void;
  onSwitchStream: () => void;
  onRefused?: (refusal: StartRefusal) => void;
}

export function VideoWindow({ index, slot, selected, onSelect, onClose, onSwitchStream, onRefused }: Props) {
  const { t } = useTranslation('video');
  const { message } = App.useApp();
  const frame = useRef<HTMLDivElement>(null);
  const player = useRef<LivePlayerHandle>(null);
  const [status, setStatus] = useState<PlayerStatus>('idle');
  const [muted, setMuted] = useState(true);
  const [quality, setQuality] = useState<StreamQuality | null>(null);
  const entry = slot?.entry;
  const stream = slot?.stream;
  const audioOnly = entry?.dataType === DATA_TYPE.listen;
  const outcome = useStartOutcome(stream?.id, stream ? `${stream.streamId}@${stream.urlExpiresAt}` : null, status === 'playing');
  const refused = slot?.refused ?? outcome;
  const onRefusedRef = useRef(onRefused);
  useEffect(() => {
    onRefusedRef.current = onRefused;
  });
  useEffect(() => {
    if (outcome) onRefusedRef.current?.(outcome);
  }, [outcome]);

  const snapshot = () => {
    const video = player.current?.video;
    if (!entry || !video || !downloadSnapshot(video, snapshotName(entry.plateNumber, entry.channelId))) {
      void message.info(t('window.noPicture'));
    }
  };

  return (
    <div
      ref={frame}
      className={`fw-video-window${selected ? ' fw-video-window-selected' : ''}`}
      data-testid={`video-window-${index}`}
      data-key={entry?.key ?? ''}
      data-status={entry ? (refused ? 'refused' : stream ? status : 'starting') : 'empty'}
      onClick={onSelect}
    >
      {entry && (
        <div className="fw-video-window-bar">
          <span className="fw-video-window-title">
            {t('window.title', { plate: entry.plateNumber, channel: entry.channelId })}
            {audioOnly ? ` · ${t('window.listen')}` : ''}
            {quality !== null && status === 'playing' && (
              <span className={`fw-video-quality fw-video-quality-${quality}`} data-testid={`window-quality-${index}`} data-quality={quality}>
                {t(`quality.${QUALITY_LABELS[quality]}`)}
              </span>
            )}
          </span>
          <Space size={2}>
            <Tooltip title={t(entry.streamType === STREAM_TYPE.main ? 'window.toSub' : 'window.toMain')}>
              <Button size="small" type="text" className="fw-video-btn" data-testid={`window-stream-${index}`} onClick={onSwitchStream}>
                {t(entry.streamType === STREAM_TYPE.main ? 'window.main' : 'window.sub')}
              </Button>
            </Tooltip>
            <Button size="small" type="text" className="fw-video-btn" data-testid={`window-mute-${index}`} aria-label={t('window.sound')}
              icon={muted ? <AudioMutedOutlined /> : <SoundOutlined />} onClick={() => setMuted((m) => !m)} />
            <Button size="small" type="text" className="fw-video-btn" data-testid={`window-snapshot-${index}`} aria-label={t('window.snapshot')}
              icon={<CameraOutlined />} onClick={snapshot} />
            <Button size="small" type="text" className="fw-video-btn" data-testid={`window-fullscreen-${index}`} aria-label={t('window.fullscreen')}
              icon={<ExpandOutlined />} onClick={() => void frame.current?.requestFullscreen?.().catch(() => undefined)} />
            <Button size="small" type="text" className="fw-video-btn" data-testid={`window-close-${index}`} aria-label={t('window.close')}
              icon={<CloseOutlined />} onClick={(e) => { e.stopPropagation(); onClose(); }} />
          </Space>
        </div>
      )}
      <div className="fw-video-window-body">
        {entry && stream && !refused && (
          <LivePlayer
            ref={player}
            stream={{ ...stream, deviceSn: entry.deviceSn, label: entry.plateNumber }}
            muted={audioOnly ? false : muted}
            audioOnly={audioOnly}
            onStatus={setStatus}
            onQuality={setQuality}
          />
        )}
        {entry && !refused && (!stream || status === 'starting') && <LoadingOutlined className="fw-video-spinner" />}
        {entry && refused && (
          <span className="fw-video-refusal" role="alert" data-testid={`window-refusal-${index}`} data-reason={refused}>
            {t(`outcome.${refused}`, { s: NO_MEDIA_MS / 1000 })}
          </span>
        )}
        {!entry && <span className="fw-video-empty">{t('window.empty', { n: index + 1 })}</span>}
      </div>
    </div>
  );
}
