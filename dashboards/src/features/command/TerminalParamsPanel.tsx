import { Alert, App, Button, Card, Empty, Form, Input, InputNumber, Select, Space, Table } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { http } from '../../api/client';
import { readTerminalParams, writeTerminalParams } from './api';
import { checkParamValue } from './validation';
import { paramIdHex } from './paramValues';
import { changedParams, fieldName, groupedRows, guardedParams, type ParamRow } from './terminalParamsModel';
import { defaultDevice, useCarDevices } from './useCarDevices';

export interface CarOption {
  carId: number;
  plateNumber: string;
  masterDeviceId: number | null;
}

/** Vehicles whose plate contains `text` (at most 20, of the caller's enterprise scope), for the picker. */
async function searchCars(text: string, signal: AbortSignal): Promise<CarOption[]> {
  const reply = await http.post<{ list: CarOption[] } | null>('/api/common/query/carView.json', {
    params: { countable: false, pageNo: 1, pageSize: 20, select: 'carId,plateNumber,masterDeviceId' },
    body: text.trim() ? { 'plateNumber.like': text.trim() } : {},
    signal,
  });
  return reply.code === 0 ? (reply.data?.list ?? []) : [];
}

export function VehiclePicker({ value, onChange }: { value: CarOption | null; onChange: (car: CarOption | null) => void }) {
  const { t } = useTranslation('command');
  const [search, setSearch] = useState('');
  const [cars, setCars] = useState<CarOption[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => void searchCars(search, controller.signal).then((list) => !controller.signal.aborted && setCars(list)), 250);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [search]);
  return (
    <Select
      showSearch={{ filterOption: false, onSearch: setSearch }}
      style={{ width: 240 }}
      placeholder={t('screen.vehiclePlaceholder')}
      value={value?.carId}
      onChange={(carId: number) => onChange(cars.find((c) => c.carId === carId) ?? null)}
      options={cars.map((c) => ({ value: c.carId, label: c.plateNumber }))}
      data-testid="params-vehicle"
    />
  );
}

function valueText(row: ParamRow, t: (key: string) => string): string {
  if (row.value === null) return '-';
  return row.def?.unit ? `${row.value} ${t(`units.${row.def.unit}`)}` : String(row.value);
}

/** Settings → terminal parameters: pick a vehicle (and device), read (8104), edit, write (8103). */
export function TerminalParamsPanel() {
  const { t } = useTranslation('command');
  const { message, modal } = App.useApp();
  const [form] = Form.useForm();
  const [car, setCar] = useState<CarOption | null>(null);
  const devices = useCarDevices(car?.carId ?? 0);
  const [deviceChoice, setDeviceChoice] = useState<number | undefined>();
  const deviceId = deviceChoice ?? (devices && car ? defaultDevice(devices, car.masterDeviceId)?.id : undefined);
  const [status, setStatus] = useState<{ kind: 'idle' | 'reading' | 'unanswered'; reason?: string }>({ kind: 'idle' });
  const [values, setValues] = useState<Record<string, string> | null>(null);
  const [writing, setWriting] = useState(false);
  const groups = useMemo(() => (values ? groupedRows(values) : []), [values]);

  const pick = (next: CarOption | null) => {
    setCar(next);
    setDeviceChoice(undefined);
    setValues(null);
    setStatus({ kind: 'idle' });
  };
  const read = async () => {
    if (deviceId === undefined) return;
    setStatus({ kind: 'reading' });
    const outcome = await readTerminalParams({ deviceId }, deviceId);
    if (outcome.kind === 'ok') {
      form.resetFields();
      setValues(outcome.values);
      setStatus({ kind: 'idle' });
    } else {
      setStatus(outcome.kind === 'unanswered' ? { kind: 'unanswered', reason: outcome.state?.state ?? 'timed_out' } : { kind: 'idle' });
    }
  };
  const write = async () => {
    if (deviceId === undefined || !values) return;
    const edited = (await form.validateFields().catch(() => null)) as Record<string, unknown> | null;
    if (!edited) return;
    const change = changedParams(edited, values);
    if (!change.ok) return;
    if (change.params.size === 0) {
      void message.info(t('screen.nothingChanged'));
      return;
    }
    const guarded = guardedParams(change.params);
    if (guarded.length && !(await confirmGuarded(guarded))) return;
    setWriting(true);
    const reply = await writeTerminalParams({ deviceId }, change.params, guarded.length > 0);
    setWriting(false);
    if (reply.code === 0) void message.success({ content: <span data-testid="command-accepted">{reply.message}</span> });
  };
  // Link and identity parameters can take the terminal off the platform: the operator confirms them by name.
  const confirmGuarded = (ids: number[]) => modal.confirm({
    title: t('confirm.title'),
    content: (
      <div data-testid="params-confirm">
        <p>{t('confirm.body')}</p>
        <ul>{ids.map((id) => <li key={id} data-testid={`params-confirm-${paramIdHex(id)}`}>{`0x${paramIdHex(id)} ${t(`paramNames.${paramIdHex(id)}`, { defaultValue: '' })}`}</li>)}</ul>
      </div>
    ),
    okText: t('confirm.ok'),
    cancelText: t('confirm.cancel'),
    okButtonProps: { danger: true, 'data-testid': 'params-confirm-ok' },
    cancelButtonProps: { 'data-testid': 'params-confirm-cancel' },
  });

  const columns = [
    { key: 'hex', title: t('screen.id'), dataIndex: 'hex', width: 90, render: (hex: string) => `0x${hex}` },
    { key: 'name', title: t('screen.name'), render: (_: unknown, row: ParamRow) => t(`paramNames.${row.hex}`, { defaultValue: `0x${row.hex}` }) },
    { key: 'current', title: t('screen.current'), render: (_: unknown, row: ParamRow) => <span data-testid={`param-current-${row.hex}`}>{valueText(row, t)}</span> },
    {
      key: 'new', title: t('screen.newValue'), width: 260,
      render: (_: unknown, row: ParamRow) => row.def && (
        <Form.Item
          name={fieldName(row.hex)}
          style={{ margin: 0 }}
          rules={[{ validator: (__, value) => {
            const problem = value === undefined || value === null || value === '' ? null : checkParamValue(row.def!, value);
            return problem ? Promise.reject(new Error(t(problem, { min: row.def!.min, max: row.def!.max }))) : Promise.resolve();
          } }]}
        >
          {row.def.type === 'STRING'
            ? <Input data-testid={`param-input-${row.hex}`} />
            : <InputNumber style={{ width: '100%' }} data-testid={`param-input-${row.hex}`} />}
        </Form.Item>
      ),
    },
  ];

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="terminal-params">
      <Space wrap>
        <span>{t('screen.vehicle')}</span>
        <VehiclePicker value={car} onChange={pick} />
        {devices && devices.length > 1 && (
          <Select style={{ width: 240 }} value={deviceId} onChange={setDeviceChoice} data-testid="params-device"
            options={devices.map((d) => ({ value: d.id, label: `${d.deviceName || d.deviceSn} (${d.phone})` }))} />
        )}
        <Button type="primary" disabled={deviceId === undefined} loading={status.kind === 'reading'} onClick={() => void read()} data-testid="params-read">
          {t('screen.read')}
        </Button>
        <Button disabled={!values} loading={writing} onClick={() => void write()} data-testid="params-write">{t('screen.write')}</Button>
      </Space>
      {status.kind === 'reading' && <Alert type="info" showIcon title={t('screen.reading')} />}
      {status.kind === 'unanswered' && <Alert type="warning" showIcon title={t('screen.unanswered', { reason: status.reason })} data-testid="params-unanswered" />}
      {!values ? (
        <Empty description={car ? t('screen.noParams') : t('screen.pickVehicle')} />
      ) : (
        <Form form={form} component={false}>
          {groups.map(({ group, rows }) => (
            <Card key={group} size="small" title={t(`groups.${group}`)} data-testid={`params-group-${group}`} style={{ marginBottom: 12 }}>
              <Table rowKey="hex" size="small" pagination={false} columns={columns} dataSource={rows} />
            </Card>
          ))}
        </Form>
      )}
    </Space>
  );
}
