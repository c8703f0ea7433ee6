/**
 * Play / pause / resume, restart, the speed and the progress slider (seek) of the one replay clock.
 * The button's test id names what it does now: replay-play (stopped), replay-pause (playing),
 * replay-resume (paused).
 */
import { CaretRightOutlined, PauseOutlined, RedoOutlined } from '@ant-design/icons';
import { Button, Select, Slider, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../map/popup/format';
import { SPEED_OPTIONS } from './replayModel';
import type { Replay } from './useReplay';

export function ReplayControls({ replay }: { replay: Replay }) {
  const { t } = useTranslation('replay');
  const { clock, state, timeline, time } = replay;
  const empty = timeline.length === 0;
  const playing = state.status === 'playing';
  const action = playing ? 'pause' : state.status === 'paused' ? 'resume' : 'play';

  return (
    <div className="fw-replay-controls" data-testid="replay-controls" data-status={state.status} data-index={state.index ?? ''}>
      <Space>
        <Button
          type="primary"
          data-testid={`replay-${action}`}
          disabled={empty || state.restartAtMs !== null}
          icon={playing ? <PauseOutlined /> : <CaretRightOutlined />}
          onClick={() => (playing ? clock.pause() : clock.play())}
        >
          {t(`controls.${action}`)}
        </Button>
        <Button data-testid="replay-restart" disabled={empty} icon={<RedoOutlined />} onClick={() => clock.restart()}>
          {t('controls.restart')}
        </Button>
        <span>{t('controls.speed')}</span>
        <Select
          data-testid="replay-speed"
          style={{ width: 96 }}
          value={state.speed}
          onChange={(speed: number) => clock.setSpeed(speed)}
          options={SPEED_OPTIONS.map((s) => ({ value: s, label: `×${s}` }))}
        />
      </Space>
      <Slider
        className="fw-replay-slider"
        data-testid="replay-slider"
        disabled={empty}
        min={0}
        max={Math.max(0, timeline.length - 1)}
        value={state.index ?? 0}
        onChange={(index: number) => clock.seek(index)}
        tooltip={{ formatter: (index) => (index === undefined || empty ? '' : formatTime(timeline[index])) }}
      />
      <span className="fw-replay-time" data-testid="replay-time">
        {time === null ? '-' : formatTime(time)} {empty ? '' : `(${(state.index ?? 0) + 1}/${timeline.length})`}
      </span>
    </div>
  );
}
