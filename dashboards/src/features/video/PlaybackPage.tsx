/**
 * Video playback (route `dashboard/playback`; platform-spec §2): search a vehicle's
 * recordings on its terminal (9205, answered by 0x1205 in the command's state), list them, play one
 * (9201) with pause / resume / speed / seek / stop (9202). Test ids: `playback-page`, `playback-car`,
 * `playback-channel`, `playback-range`, `playback-search`, `playback-list`, `playback-play-<i>`,
 * `playback-player` (`data-stream-id`), `playback-pause`, `playback-resume`, `playback-speed`,
 * `playback-state` (`data-state` pending / playing / paused, `data-rate`: what the terminal accepted),
 * `playback-seek`, `playback-stop`.
 */
import { Alert, App, Button, Card, DatePicker, Select, Space, Spin, Table, Tag, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLiveHub } from '../../live/useLiveHub';
import { formatTime } from '../map/popup/format';
import { controlPlayback, fetchVideoCommandState, queryRecordings, startPlayback, type Recording, type StreamStart } from './api';
import { PLAYER } from './constants';
import { LivePlayer, type LivePlayerHandle } from './LivePlayer';
import { stopGraceMs } from './hiddenStop';
import { formatBytes, recordingsOf } from './playbackModel';
import { askSpeed } from './playbackSpeed';
import { useStopWhenHidden } from './useStopWhenHidden';
import { useVideoCars } from './useVideoCars';

const SEARCH_TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Search = { state: 'idle' | 'searching' | 'done' | 'unanswered'; list: Recording[] };

export default function PlaybackPage() {
  const { t } = useTranslation('video');
  const hub = useLiveHub();
  const { nodes } = useVideoCars(hub);
  const [carKey, setCarKey] = useState<string | null>(null);
  const [channel, setChannel] = useState(0);
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => [dayjs().startOf('day'), dayjs()]);
  const [search, setSearch] = useState<Search>({ state: 'idle', list: [] });
  const [playing, setPlaying] = useState<{ recording: Recording; stream: StreamStart } | null>(null);
  const [paused, setPaused] = useState(false);
  const [rate, setRate] = useState(1);
  const [pendingRate, setPendingRate] = useState<number | null>(null);
  const { message } = App.useApp();
  const [seekAt, setSeekAt] = useState<Dayjs | null>(null);
  const player = useRef<LivePlayerHandle>(null);
  const car = nodes?.find((n) => n.key === carKey) ?? null;
  const target = car ? { carId: car.carId, deviceId: car.deviceId } : null;
  const generation = useRef(0);

  const find = async () => {
    if (!target) return;
    const mine = ++generation.current;
    setSearch({ state: 'searching', list: [] });
    const reply = await queryRecordings(target, { channelId: channel, startTime: range[0].toISOString(), endTime: range[1].toISOString() });
    if (reply.code !== 0 || !reply.data) {
      setSearch({ state: 'idle', list: [] });
      return;
    }
    for (let waited = 0; waited < SEARCH_TIMEOUT_MS && mine === generation.current; waited += 1000) {
      const state = await fetchVideoCommandState(reply.data.id);
      if (state && ['answered', 'timed_out', 'failed'].includes(state.state)) {
        if (mine === generation.current) setSearch({ state: state.state === 'answered' ? 'done' : 'unanswered', list: recordingsOf(state.reply) });
        return;
      }
      await sleep(1000);
    }
    if (mine === generation.current) setSearch({ state: 'unanswered', list: [] });
  };

  const play = async (recording: Recording) => {
    if (!target) return;
    const reply = await startPlayback(target, recording);
    if (reply.code === 0 && reply.data) {
      setPaused(false);
      setRate(1);
      setSeekAt(dayjs(recording.startTime));
      setPlaying({ recording, stream: reply.data });
    }
  };

  const control = (payload: { control: number; speed?: number; seekTime?: string }) => {
    if (!target || !playing) return Promise.resolve(null);
    return controlPlayback(target, { channelId: playing.recording.channelId, ...payload });
  };

  const pause = async (on: boolean) => {
    const reply = await control({ control: on ? 1 : 0 });
    if (reply?.code !== 0) return;
    setPaused(on);
    const video = player.current?.video;
    if (video) {
      if (on) video.pause();
      else void video.play().catch(() => undefined);
    }
  };

  // The player takes a rate once the terminal accepted it (playbackSpeed.ts); faster than 1 plays the
  // pictures only: the terminal fast-forwards without sound, and sound stretched past 1x is noise.
  const changeRate = async (next: number) => {
    if (!target || !playing || next === rate) return;
    setPendingRate(next);
    const answer = await askSpeed(target, playing.recording.channelId, next);
    setPendingRate(null);
    if (answer.ok) {
      setRate(next);
      return;
    }
    if (answer.refusal === 'unanswered') void message.error({ content: t('speed.unanswered', { rate: next, current: rate }), key: 'playback-speed' });
    else if (answer.refusal) void message.error({ content: t('speed.refused', { rate: next, current: rate, reason: t(`outcome.${answer.refusal}`) }), key: 'playback-speed' });
  };
  useEffect(() => {
    const video = player.current?.video;
    if (!video) return;
    video.defaultPlaybackRate = rate; // a reopened stream (sound on / off) reloads the element
    video.playbackRate = rate;
  });

  const stop = async () => {
    await control({ control: 2 });
    setPlaying(null);
  };

  // Leaving the screen ends the terminal's playback.
  const latestStop = useRef(stop);
  useEffect(() => {
    latestStop.current = stop;
  });
  useEffect(() => () => void latestStop.current(), []);
  // So does its page staying hidden for the media server's grace (the terminal pays per MB).
  useStopWhenHidden(playing !== null, stopGraceMs([playing?.stream]), () => void latestStop.current());

  const columns = [
    { title: t('playback.columns.channel'), dataIndex: 'channelId', width: 70 },
    { title: t('playback.columns.startTime'), dataIndex: 'startTime', render: (v: string) => formatTime(v) },
    { title: t('playback.columns.endTime'), dataIndex: 'endTime', render: (v: string) => formatTime(v) },
    { title: t('playback.columns.mediaType'), dataIndex: 'mediaType', render: (v: number) => t(`playback.mediaType.${v}`, { defaultValue: String(v) }) },
    { title: t('playback.columns.streamType'), dataIndex: 'streamType', render: (v: number) => t(`playback.streamType.${v}`, { defaultValue: String(v) }) },
    { title: t('playback.columns.storageType'), dataIndex: 'storageType', render: (v: number) => t(`playback.storageType.${v}`, { defaultValue: String(v) }) },
    { title: t('playback.columns.size'), dataIndex: 'fileSize', render: (v: number) => formatBytes(v) },
    {
      title: t('playback.columns.action'),
      key: 'action',
      render: (_: unknown, r: Recording, i: number) => (
        <Button size="small" type="link" data-testid={`playback-play-${i}`} onClick={() => void play(r)}>{t('playback.play')}</Button>
      ),
    },
  ];

  const channels = car?.children?.filter((c) => c.kind === 'channel').map((c) => c.channelId) ?? [];
  return (
    <div data-testid="playback-page" style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
      <Card size="small">
        <Space wrap>
          <Select showSearch size="small" style={{ width: 200 }} placeholder={t('playback.pickVehicle')} data-testid="playback-car" loading={nodes === null}
            optionFilterProp="label" value={carKey} onChange={(key: string) => { setCarKey(key); setChannel(0); }}
            options={(nodes ?? []).map((n) => ({ value: n.key, label: n.plateNumber }))} />
          <Select size="small" style={{ width: 120 }} value={channel} onChange={setChannel} data-testid="playback-channel"
            options={[{ value: 0, label: t('playback.allChannels') }, ...channels.map((c) => ({ value: c, label: t('tree.channel', { n: c }) }))]} />
          <DatePicker.RangePicker size="small" showTime value={range} data-testid="playback-range"
            onChange={(value) => value?.[0] && value[1] && setRange([value[0], value[1]])} />
          <Button size="small" type="primary" disabled={!target} loading={search.state === 'searching'} data-testid="playback-search" onClick={() => void find()}>
            {t('playback.search')}
          </Button>
        </Space>
      </Card>
      {playing && (
        <Card size="small" title={t('playback.nowPlaying', { plate: car?.plateNumber ?? '', channel: playing.recording.channelId,
          start: formatTime(playing.recording.startTime), end: formatTime(playing.recording.endTime) })}>
          <div style={{ height: 360, maxWidth: 360 * PLAYER.aspect }} data-testid="playback-player" data-stream-id={playing.stream.streamId}>
            <LivePlayer ref={player} stream={{ ...playing.stream, deviceSn: car?.deviceSn ?? '', label: car?.plateNumber ?? '' }} liveness={false} muted={rate > 1} />
          </div>
          <Space wrap style={{ marginTop: 8 }}>
            {paused
              ? <Button size="small" data-testid="playback-resume" onClick={() => void pause(false)}>{t('playback.resume')}</Button>
              : <Button size="small" data-testid="playback-pause" onClick={() => void pause(true)}>{t('playback.pause')}</Button>}
            <span>{t('playback.speed')}</span>
            <Select size="small" value={pendingRate ?? rate} style={{ width: 80 }} data-testid="playback-speed" onChange={(v) => void changeRate(v)}
              disabled={pendingRate !== null} options={PLAYER.playbackRates.map((r) => ({ value: r, label: `${r}x` }))} />
            <Tag data-testid="playback-state" data-state={pendingRate !== null ? 'pending' : paused ? 'paused' : 'playing'} data-rate={pendingRate ?? rate}
              color={pendingRate !== null ? 'processing' : paused ? 'default' : 'success'}>
              {pendingRate !== null ? t('speed.pending', { rate: pendingRate }) : paused ? t('speed.paused') : t('speed.playing', { rate })}
            </Tag>
            <span>{t('playback.seekTo')}</span>
            <DatePicker size="small" showTime value={seekAt} onChange={setSeekAt} data-testid="playback-seek-time"
              minDate={dayjs(playing.recording.startTime)} maxDate={dayjs(playing.recording.endTime)} />
            <Button size="small" data-testid="playback-seek" disabled={!seekAt} onClick={() => seekAt && void control({ control: 5, seekTime: seekAt.toISOString() })}>
              {t('playback.seek')}
            </Button>
            <Button size="small" danger data-testid="playback-stop" onClick={() => void stop()}>{t('playback.stop')}</Button>
          </Space>
        </Card>
      )}
      <Card size="small">
        {search.state === 'searching' && <Space><Spin size="small" /><Typography.Text>{t('playback.searching')}</Typography.Text></Space>}
        {search.state === 'unanswered' && <Alert type="warning" showIcon title={t('playback.unanswered')} />}
        <Table<Recording> size="small" rowKey={(r) => `${r.channelId}-${r.startTime}`} data-testid="playback-list" columns={columns}
          dataSource={search.list} pagination={{ pageSize: 10 }}
          locale={{ emptyText: search.state === 'done' ? t('playback.noRecordings') : ' ' }} />
      </Card>
    </div>
  );
}
