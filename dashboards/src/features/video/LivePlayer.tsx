/**
 * One live stream in a <video> (console-spec §4 "live player", "stream liveness"): mpegts.js driven by
 * the player model, the stream's heartbeat every 5 s while shown, the 15 s liveness check with its
 * "suspected push stream abnormal" notice, fresh signed URLs from the stream info when the start's
 * expired, and the spec's messages. A muted player demuxes the video track only: the terminal's G.711
 * is transcoded to AAC in frames of 64 ms, and Media Source Extensions play no further than the
 * shorter of the two tracks, which held the picture about 0.3 s further back (docs/performance.md);
 * unmuting reopens the stream with its sound. Test ids: `live-player` (`data-status`, `data-stream-id`,
 * `data-first-frame-ms`).
 */
import { App } from 'antd';
import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fetchStreamInfo, type StreamInfo, type StreamKind } from './api';
import { LIVENESS_CHECK_MS } from './constants';
import { streamHeartbeat } from './heartbeat';
import { suspectedAbnormal, urlsExpired } from './liveness';
import { LivePlayerController } from './playerController';
import type { PlayerStatus, StreamQuality } from './playerModel';

/** No picture this long after the start: ask the stream info whether the browser can decode it. */
const NOT_PLAYABLE_CHECK_MS = 3000;

export interface PlayableStream {
  streamId: string;
  flvUrl: string;
  wsUrl: string;
  urlExpiresAt: number;
  deviceSn: string;
  channelId: number;
  kind: StreamKind;
  /** Shown in the liveness notice: the plate or the device name. */
  label: string;
}

export interface LivePlayerHandle {
  video: HTMLVideoElement | null;
}

interface Props {
  stream: PlayableStream;
  muted?: boolean;
  audioOnly?: boolean;
  /** Live streams get the liveness check and the catch-up rule; a playback neither (it ends by itself). */
  liveness?: boolean;
  onStatus?: (status: PlayerStatus) => void;
  onQuality?: (quality: StreamQuality) => void;
  className?: string;
  /** Where fresh URLs and the stream's state come from instead of the terminal stream's info
   * (`GET /api/video/{deviceSn}/{channel}.json`): a stream pulled from another platform (the exchange video
   * request). Such a stream has no heartbeat either: it is no terminal's, the media server keeps it while watched. */
  streamInfo?: () => Promise<Pick<StreamInfo, 'wsUrl' | 'flvUrl' | 'urlExpiresAt' | 'browserPlayable'> | null>;
}

export const LivePlayer = forwardRef<LivePlayerHandle, Props>(function LivePlayer(
  { stream, muted = true, audioOnly = false, liveness = true, onStatus, onQuality, className, streamInfo },
  ref,
) {
  const { t } = useTranslation('video');
  const { message, notification } = App.useApp();
  const videoRef = useRef<HTMLVideoElement>(null);
  const [status, setStatus] = useState<PlayerStatus>('idle');
  const [firstFrameMs, setFirstFrameMs] = useState<number | null>(null);
  const onStatusRef = useRef(onStatus);
  const onQualityRef = useRef(onQuality);
  // Messages read the current translation through refs: `t` changing (a namespace loaded, the
  // language switched) must not restart the stream.
  const say = useRef({ t, message, notification });
  useEffect(() => {
    onStatusRef.current = onStatus;
    onQualityRef.current = onQuality;
    say.current = { t, message, notification };
  });
  useImperativeHandle(ref, () => ({ get video() { return videoRef.current; } }), []);

  const { streamId, deviceSn, channelId, kind, label } = stream;
  const withAudio = audioOnly || !muted;
  const urls = useRef({ ws: stream.wsUrl, flv: stream.flvUrl, expiresAt: stream.urlExpiresAt });
  const infoOf = useRef(streamInfo);
  const pulled = streamInfo !== undefined;
  useEffect(() => { infoOf.current = streamInfo; });
  const info = (): ReturnType<NonNullable<Props['streamInfo']>> =>
    (infoOf.current ? infoOf.current() : fetchStreamInfo(deviceSn, channelId, kind));

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return undefined;
    // WebSocket-FLV: a browser opens at most 6 HTTP connections to one host, a grid needs 16.
    const source = async () => {
      if (urlsExpired(urls.current.expiresAt, Date.now())) {
        const fresh = await info();
        if (fresh?.wsUrl && fresh.urlExpiresAt) urls.current = { ws: fresh.wsUrl, flv: fresh.flvUrl ?? '', expiresAt: fresh.urlExpiresAt };
        else return null;
      }
      return urls.current.ws || urls.current.flv;
    };
    const controller = new LivePlayerController(video, source, {
      state: (state) => {
        setStatus(state.status);
        onStatusRef.current?.(state.status);
      },
      message: (key) => void say.current.message.error({ content: say.current.t(`player.${key}`), key: `player-${streamId}` }),
      firstFrame: (ms) => setFirstFrameMs(ms),
      quality: (quality) => onQualityRef.current?.(quality),
    }, undefined, audioOnly, liveness, withAudio);
    const release = pulled ? () => undefined : streamHeartbeat.hold(streamId);
    controller.start();
    const withFrames = video as HTMLVideoElement & { requestVideoFrameCallback?: (cb: () => void) => number };
    if (!audioOnly && typeof withFrames.requestVideoFrameCallback === 'function') {
      withFrames.requestVideoFrameCallback(() => controller.framePainted());
    }
    return () => {
      controller.stop();
      release();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `info` reads the latest props through refs
  }, [streamId, deviceSn, channelId, kind, audioOnly, liveness, withAudio, pulled]);

  // A picture late to come may be one the browser cannot decode (H.265 in a browser without HEVC in
  // its Media Source Extensions): the stream info says so, and the window says it plainly.
  useEffect(() => {
    if (audioOnly || status !== 'starting') return undefined;
    const timer = setTimeout(() => {
      void info().then((found) => {
        if (found?.browserPlayable === false) {
          void say.current.message.error({ content: say.current.t('player.notPlayable', { device: label, channel: channelId }), key: `player-${streamId}` });
        }
      });
    }, NOT_PLAYABLE_CHECK_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `info` reads the latest props through refs
  }, [audioOnly, status, deviceSn, channelId, kind, label, streamId]);

  // Stream liveness: every 15 s; one notice per abnormal spell.
  useEffect(() => {
    if (!liveness) return undefined;
    let warned = false;
    const timer = setInterval(() => {
      void fetchStreamInfo(deviceSn, channelId, kind).then((info) => {
        if (info?.wsUrl && info.urlExpiresAt) urls.current = { ws: info.wsUrl, flv: info.flvUrl ?? '', expiresAt: info.urlExpiresAt };
        const suspect = suspectedAbnormal(info, Date.now());
        if (suspect && !warned) {
          const { t: tr, notification: notices } = say.current;
          notices.warning({
            key: `liveness-${streamId}`,
            title: tr('liveness.title'),
            description: <span data-testid="liveness-notice">{tr('liveness.suspected', { device: label, channel: channelId })}</span>,
          });
        }
        warned = suspect;
      });
    }, LIVENESS_CHECK_MS);
    return () => clearInterval(timer);
  }, [liveness, deviceSn, channelId, kind, streamId, label]);

  return (
    <video
      ref={videoRef}
      className={className}
      data-testid="live-player"
      data-status={status}
      data-stream-id={streamId}
      data-first-frame-ms={firstFrameMs ?? undefined}
      muted={muted}
      playsInline
      autoPlay
      style={{ width: '100%', height: '100%', objectFit: 'contain', background: '#000', display: 'block' }}
    />
  );
});
