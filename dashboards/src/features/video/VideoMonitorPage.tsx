/**
 * The video monitoring screen (route `dashboard/monitor`, console-spec §2 "live video grid"): the
 * video channel tree on the left, the carousel of video vehicles and the grid of up to 16 windows on
 * the right; the talk dialog for a vehicle's talk channel. Test id: `video-monitor`.
 */
import { Card, Col, Row } from 'antd';
import { useState } from 'react';
import { useLiveHub } from '../../live/useLiveHub';
import { ChannelTree } from './ChannelTree';
import { entryOf, talkTargetOf } from './entries';
import { TalkDialog, type TalkTarget } from './TalkDialog';
import { useStreamingChannels } from './streamPush';
import { useContentHeight } from './useContentHeight';
import { useVideoCars } from './useVideoCars';
import { useVideoGrid } from './useVideoGrid';
import { VehicleCarousel } from './VehicleCarousel';
import { VideoGrid } from './VideoGrid';

export default function VideoMonitorPage() {
  const hub = useLiveHub();
  const height = useContentHeight();
  const { nodes, online, rows } = useVideoCars(hub);
  const grid = useVideoGrid(4);
  const [talk, setTalk] = useState<TalkTarget | null>(null);
  const streaming = useStreamingChannels(hub);
  const cars = nodes ?? [];

  return (
    <div data-testid="video-monitor">
      {/* side by side from md up; on a phone the channel tree above the grid, each the screen's width */}
      <Row gutter={[12, 12]}>
        <Col xs={24} md={{ flex: '260px' }}>
          <Card size="small" styles={{ body: { padding: 8 } }}>
            <ChannelTree nodes={nodes} online={online} height={height} streaming={streaming}
              onPlay={(picked) => void grid.open(picked.map((n) => entryOf(n)), online)}
              onTalk={(node) => setTalk(talkTargetOf(node))} />
          </Card>
        </Col>
        <Col xs={24} md={{ flex: '1 1 0' }} style={{ minWidth: 0 }}>
          <Card size="small" styles={{ body: { padding: 8, display: 'flex', flexDirection: 'column', gap: 8 } }}>
            <VehicleCarousel cars={cars} online={online}
              onPick={(car) => void grid.open((car.children ?? []).filter((c) => c.kind === 'channel').map((n) => entryOf(n)), online)} />
            <VideoGrid grid={grid} height={height - 40} />
          </Card>
        </Col>
      </Row>
      {talk && <TalkDialog target={talk} talkChannel={rows?.find((r) => r.carId === talk.carId)?.talkChannel ?? null}
        videoChannel={rows?.find((r) => r.carId === talk.carId)?.videoChannel ?? null} onClose={() => setTalk(null)} />}
    </div>
  );
}
