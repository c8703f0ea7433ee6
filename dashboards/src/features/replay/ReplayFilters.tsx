/**
 * What to replay: one or several vehicles (searched by plate), a time range with the presets today /
 * yesterday / last 3 days, the load button and the exports of each loaded vehicle's track.
 */
import { DownloadOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, DatePicker, Dropdown, Select, Space } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { searchCars, type CarOption, type TrackRange } from './api';
import { presetRange } from './range';

export interface ReplayFiltersProps {
  cars: CarOption[];
  onCars: (cars: CarOption[]) => void;
  range: TrackRange;
  onRange: (range: TrackRange) => void;
  loading: boolean;
  onLoad: () => void;
  /** Vehicles whose track is loaded (the export menu). */
  loaded: CarOption[];
  onExport: (car: CarOption, format: 'csv' | 'gpx' | 'kml') => void;
}

export function ReplayFilters({ cars, onCars, range, onRange, loading, onLoad, loaded, onExport }: ReplayFiltersProps) {
  const { t } = useTranslation('replay');
  const [search, setSearch] = useState('');
  const [options, setOptions] = useState<CarOption[]>([]);

  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      void searchCars(search, controller.signal).then((found) => {
        if (!controller.signal.aborted) setOptions(found);
      });
    }, 250);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [search]);

  const byId = new Map([...options, ...cars].map((c) => [c.carId, c]));
  const value: [Dayjs, Dayjs] = [dayjs(range.start), dayjs(range.end)];

  return (
    <Space wrap className="fw-replay-filters" data-testid="replay-filters">
      <Select
        mode="multiple"
        data-testid="replay-vehicles"
        style={{ minWidth: 260, maxWidth: 520 }}
        placeholder={t('vehiclePlaceholder')}
        showSearch={{ filterOption: false, onSearch: setSearch }}
        value={cars.map((c) => c.carId)}
        onChange={(ids: number[]) => onCars(ids.map((id) => byId.get(id)).filter((c): c is CarOption => !!c))}
        options={[...byId.values()].map((c) => ({ value: c.carId, label: c.plateNumber }))}
        maxTagCount={4}
      />
      <DatePicker.RangePicker
        data-testid="replay-range"
        showTime
        allowClear={false}
        value={value}
        onChange={(next) => {
          if (next?.[0] && next[1]) onRange({ start: next[0].valueOf(), end: next[1].valueOf() });
        }}
      />
      <Space.Compact>
        {(['today', 'yesterday', 'last3days'] as const).map((preset) => (
          <Button key={preset} data-testid={`replay-preset-${preset}`} onClick={() => onRange(presetRange(preset))}>
            {t(`presets.${preset}`)}
          </Button>
        ))}
      </Space.Compact>
      <Button type="primary" icon={<SearchOutlined />} loading={loading} disabled={cars.length === 0} onClick={onLoad} data-testid="replay-load">
        {t('load')}
      </Button>
      {(['csv', 'gpx', 'kml'] as const).map((format) => (
        <Dropdown
          key={format}
          disabled={loaded.length === 0}
          trigger={['click']}
          menu={{
            items: loaded.map((car) => ({ key: String(car.carId), label: car.plateNumber, 'data-testid': `replay-export-${format}-${car.carId}` })),
            onClick: ({ key }) => {
              const car = loaded.find((c) => String(c.carId) === key);
              if (car) onExport(car, format);
            },
          }}
        >
          <Button icon={<DownloadOutlined />} data-testid={`replay-export-${format}`}>
            {t(`export.${format}`)}
          </Button>
        </Dropdown>
      ))}
    </Space>
  );
}
