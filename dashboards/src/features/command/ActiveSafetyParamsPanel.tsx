import { Alert, App, Button, Card, Empty, Form, Input, InputNumber, Select, Space, Table } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  BLOCKS, bitsText, blockPayload, checkBlockValue, decodeBlock, parseBits,
  type BlockField, type BlockKind, type BlockValues,
} from './activeSafetyBlocks';
import { readTerminalParams, sendCommand } from './api';
import { VehiclePicker, type CarOption } from './TerminalParamsPanel';
import { defaultDevice, useCarDevices } from './useCarDevices';

type Row = BlockField & { current: number | string | undefined };

function currentText(row: Row, t: (key: string) => string): string {
  if (row.current === undefined) return '-';
  if (typeof row.current === 'string') return row.current;
  if (row.bits) return bitsText(row.current);
  return row.unit ? `${row.current} ${t(`activeSafety.units.${row.unit}`)}` : String(row.current);
}

/**
 * Settings → terminal parameters → ADAS / DSM (platform-spec §2): pick a vehicle of the caller's scope
 * (and device), read the active-safety block with 8106, edit its fields, write it whole with 8103 after a
 * confirmation. The command's result arrives as the command notice, as on the terminal-parameters screen.
 */
export function ActiveSafetyParamsPanel({ kind }: { kind: BlockKind }) {
  const { t } = useTranslation('command');
  const { message, modal } = App.useApp();
  const block = BLOCKS[kind];
  const [form] = Form.useForm();
  const [car, setCar] = useState<CarOption | null>(null);
  const devices = useCarDevices(car?.carId ?? 0);
  const [deviceChoice, setDeviceChoice] = useState<number | undefined>();
  const deviceId = deviceChoice ?? (devices && car ? defaultDevice(devices, car.masterDeviceId)?.id : undefined);
  const [status, setStatus] = useState<{ kind: 'idle' | 'reading' | 'unanswered' | 'malformed'; reason?: string }>({ kind: 'idle' });
  const [values, setValues] = useState<BlockValues | null>(null);
  const [writing, setWriting] = useState(false);
  const groups = useMemo(() => {
    const byGroup = new Map<string, Row[]>();
    for (const field of block.fields.filter((f) => !f.reserved)) {
      byGroup.set(field.group, [...(byGroup.get(field.group) ?? []), { ...field, current: values?.[field.key] }]);
    }
    return [...byGroup.entries()];
  }, [block, values]);

  const pick = (next: CarOption | null) => {
    setCar(next);
    setDeviceChoice(undefined);
    setValues(null);
    setStatus({ kind: 'idle' });
  };
  const read = async () => {
    if (deviceId === undefined) return;
    setStatus({ kind: 'reading' });
    const outcome = await readTerminalParams({ deviceId }, deviceId, { ids: [block.idHex] });
    if (outcome.kind === 'ok') {
      const decoded = decodeBlock(block, outcome.values[block.idHex]);
      form.resetFields();
      setValues(decoded);
      setStatus(decoded ? { kind: 'idle' } : { kind: 'malformed' });
    } else {
      setStatus(outcome.kind === 'unanswered' ? { kind: 'unanswered', reason: outcome.state?.state ?? 'timed_out' } : { kind: 'idle' });
    }
  };
  const write = async () => {
    if (deviceId === undefined || !values) return;
    const edited = (await form.validateFields().catch(() => null)) as Record<string, unknown> | null;
    if (!edited) return;
    const edits: Record<string, number> = {};
    for (const field of block.fields) {
      const raw = edited[field.key];
      if (raw === undefined || raw === null || raw === '') continue;
      const value = field.bits ? parseBits(String(raw)) : Number(raw);
      if (value !== null && value !== values[field.key]) edits[field.key] = value;
    }
    if (Object.keys(edits).length === 0) {
      void message.info(t('screen.nothingChanged'));
      return;
    }
    const confirmed = await modal.confirm({
      title: t(`activeSafety.confirm.${kind}`),
      content: (
        <ul data-testid="safety-confirm">
          {Object.entries(edits).map(([key, value]) => {
            const field = block.fields.find((f) => f.key === key)!;
            return <li key={key} data-testid={`safety-confirm-${key}`}>{`${t(`activeSafety.fields.${key}`)}: ${currentText({ ...field, current: values[key] }, t)} → ${currentText({ ...field, current: value }, t)}`}</li>;
          })}
        </ul>
      ),
      okText: t('confirm.ok'),
      cancelText: t('confirm.cancel'),
      okButtonProps: { 'data-testid': 'safety-confirm-ok' },
      cancelButtonProps: { 'data-testid': 'safety-confirm-cancel' },
    });
    if (!confirmed) return;
    setWriting(true);
    const reply = await sendCommand({ deviceId }, '8103', { paramList: [{ id: block.idHex, value: blockPayload(block, values, edits) }] });
    setWriting(false);
    if (reply.code === 0) void message.success({ content: <span data-testid="command-accepted">{reply.message}</span> });
  };

  const columns = [
    { key: 'name', title: t('screen.name'), render: (_: unknown, row: Row) => t(`activeSafety.fields.${row.key}`) },
    { key: 'range', title: t('activeSafety.range'), width: 140, render: (_: unknown, row: Row) => (row.bits ? '-' : `${row.min} ~ ${row.max}`) },
    { key: 'current', title: t('screen.current'), render: (_: unknown, row: Row) => <span data-testid={`safety-current-${row.key}`}>{currentText(row, t)}</span> },
    {
      key: 'new', title: t('screen.newValue'), width: 220,
      render: (_: unknown, row: Row) => (
        <Form.Item
          name={row.key}
          style={{ margin: 0 }}
          rules={[{ validator: (__, value) => {
            if (value === undefined || value === null || value === '') return Promise.resolve();
            const problem = row.bits ? (parseBits(String(value)) === null ? 'bits' : null) : checkBlockValue(row, Number(value));
            return problem ? Promise.reject(new Error(t(`activeSafety.errors.${problem}`, { min: row.min, max: row.max }))) : Promise.resolve();
          } }]}
        >
          {row.bits
            ? <Input placeholder="0x00000000" data-testid={`safety-input-${row.key}`} />
            : <InputNumber style={{ width: '100%' }} data-testid={`safety-input-${row.key}`} />}
        </Form.Item>
      ),
    },
  ];

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid={`safety-params-${kind}`}>
      <Alert type="info" showIcon title={t(`activeSafety.intro.${kind}`)} />
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
      {status.kind === 'malformed' && <Alert type="warning" showIcon title={t('activeSafety.malformed', { size: block.size })} data-testid="safety-malformed" />}
      {!values ? (
        <Empty description={car ? t('screen.noParams') : t('screen.pickVehicle')} />
      ) : (
        <Form form={form} component={false}>
          {groups.map(([group, rows]) => (
            <Card key={group} size="small" title={t(`activeSafety.groups.${group}`)} data-testid={`safety-group-${group}`} style={{ marginBottom: 12 }}>
              <Table rowKey="key" size="small" pagination={false} columns={columns} dataSource={rows} />
            </Card>
          ))}
        </Form>
      )}
    </Space>
  );
}
