/**
 * The carousel of video vehicles above the grid (console-spec §2): a window of 5 items, each step
 * 300 px; a click plays the vehicle's channels. Test ids: `video-carousel`, `carousel-prev`,
 * `carousel-next`, `carousel-item-<carId>`.
 */
import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useState } from 'react';
import type { ChannelNode } from './channelTree';

export const CAROUSEL_STEP_PX = 300;
export const CAROUSEL_WINDOW_ITEMS = 5;
const ITEM_PX = 148; // 140 px + the 8 px gap: five fit the window

export function VehicleCarousel({ cars, online, onPick }: { cars: ChannelNode[]; online: (deviceId: number) => boolean; onPick: (car: ChannelNode) => void }) {
  const [offset, setOffset] = useState(0);
  const max = Math.max(0, cars.length * ITEM_PX - CAROUSEL_WINDOW_ITEMS * ITEM_PX);
  return (
    <div className="fw-video-carousel" data-testid="video-carousel" data-offset={offset}>
      <Button size="small" icon={<LeftOutlined />} disabled={offset <= 0} data-testid="carousel-prev" onClick={() => setOffset((o) => Math.max(0, o - CAROUSEL_STEP_PX))} />
      <div className="fw-video-carousel-track" style={{ maxWidth: CAROUSEL_WINDOW_ITEMS * ITEM_PX }}>
        <div className="fw-video-carousel-items" style={{ transform: `translateX(-${offset}px)` }}>
          {cars.map((car) => (
            <div key={car.key} className={`fw-video-carousel-item${online(car.deviceId) ? ' fw-video-carousel-item-online' : ''}`}
              data-testid={`carousel-item-${car.carId}`} onClick={() => onPick(car)} title={car.plateNumber}>
              {car.plateNumber}
            </div>
          ))}
        </div>
      </div>
      <Button size="small" icon={<RightOutlined />} disabled={offset >= max} data-testid="carousel-next" onClick={() => setOffset((o) => Math.min(max, o + CAROUSEL_STEP_PX))} />
    </div>
  );
}
