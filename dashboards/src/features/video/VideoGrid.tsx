/**
 * The live video grid (console-spec §2): 1, 4, 6, 8, 9, 10 or 16 windows; a layout switch, full
 * screen for the whole grid. Test ids: `video-grid` (`data-layout`), `layout-<n>`, `grid-fullscreen`,
 * `grid-close-all`.
 */
import { ExpandOutlined } from '@ant-design/icons';
import { Button, Segmented, Space } from 'antd';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { GRID_LAYOUTS, type GridLayout } from './constants';
import type { VideoGrid as Grid } from './useVideoGrid';
import { VideoWindow } from './VideoWindow';
import './video.css';

const COLUMNS: Record<GridLayout, number> = { 1: 1, 4: 2, 6: 3, 8: 4, 9: 3, 10: 5, 16: 4 };

export function VideoGrid({ grid, height, toolbar = true }: { grid: Grid; height: number; toolbar?: boolean }) {
  const { t } = useTranslation('video');
  const box = useRef<HTMLDivElement>(null);
  const columns = COLUMNS[grid.layout];
  const rows = Math.ceil(grid.layout / columns);
  return (
    <div className="fw-video-grid-box" ref={box} style={{ height }}>
      {toolbar && (
        <Space className="fw-video-grid-toolbar" wrap>
          <Segmented
            size="small"
            value={grid.layout}
            onChange={(value) => grid.setLayout(value as GridLayout)}
            options={GRID_LAYOUTS.map((n) => ({ value: n, label: <span data-testid={`layout-${n}`}>{t('grid.windows', { n })}</span> }))}
          />
          <Button size="small" icon={<ExpandOutlined />} data-testid="grid-fullscreen" onClick={() => void box.current?.requestFullscreen?.().catch(() => undefined)}>
            {t('grid.fullscreen')}
          </Button>
          <Button size="small" data-testid="grid-close-all" onClick={() => void grid.closeWhere(() => true)}>
            {t('grid.closeAll')}
          </Button>
        </Space>
      )}
      <div
        className="fw-video-grid"
        data-testid="video-grid"
        data-layout={grid.layout}
        style={{ gridTemplateColumns: `repeat(${columns}, 1fr)`, gridTemplateRows: `repeat(${rows}, 1fr)` }}
      >
        {Array.from({ length: grid.layout }, (_, i) => (
          <VideoWindow
            key={i}
            index={i}
            slot={grid.slots[i] ?? null}
            selected={grid.selected === i}
            onSelect={() => grid.select(i)}
            onClose={() => void grid.close(i)}
            onRefused={(refusal) => grid.refuse(i, refusal)}
            onSwitchStream={() => {
              const slot = grid.slots[i];
              if (slot) grid.switchStream(i, slot.entry.streamType === 0 ? 1 : 0);
            }}
          />
        ))}
      </div>
    </div>
  );
}
