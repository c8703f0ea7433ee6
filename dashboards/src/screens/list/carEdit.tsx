import { App, Button, Card, Descriptions, Result, Select, Space, Spin, Table, Tag } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useAccess } from '../../auth/access';
import { carDevices, fetchRecord, freeDevices, saveCarDevices } from '../../features/fleet/api';
import { attach, detach, makeMaster, type FittedDevices } from '../../features/fleet/carDevices';
import type { ListRecord } from '../../features/list/types';

/**
 * Platform-spec §2 car edit: the vehicle's devices (fit a free device of its enterprise, remove one)
 * and its master device. One save sends the list and the master; the server checks both (a device
 * fitted elsewhere is a 409, a master outside the list a 400) and its message is shown as is.
 */
export default function CarEditScreen() {
  const { t } = useTranslation(['fleet', 'list', 'common']);
  const { message, notification } = App.useApp();
  const { can } = useAccess();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const [car, setCar] = useState<ListRecord | null>(null);
  const [missing, setMissing] = useState(false);
  const [known, setKnown] = useState<Map<number, ListRecord>>(new Map());
  const [free, setFree] = useState<ListRecord[]>([]);
  const [fitted, setFitted] = useState<FittedDevices>({ deviceIds: [], master: null });
  const [pick, setPick] = useState<number | undefined>();
  const [saving, setSaving] = useState(false);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    if (!id) return undefined;
    const controller = new AbortController();
    const { signal } = controller;
    void fetchRecord('car', id, signal).then(async (reply) => {
      if (signal.aborted) return;
      if (reply.code !== 0 || !reply.data) {
        setMissing(true);
        return;
      }
      const record = reply.data;
      const [mine, others] = await Promise.all([carDevices(id, signal), freeDevices(Number(record.enterpriseId), signal)]);
      if (signal.aborted) return;
      const rows = [...(mine.data?.list ?? []), ...(others.data?.list ?? [])];
      setKnown(new Map(rows.map((row) => [Number(row.id), row])));
      setFree(others.data?.list ?? []);
      const ids = (mine.data?.list ?? []).map((row) => Number(row.id));
      setFitted({ deviceIds: ids, master: (record.masterDeviceId as number | null) ?? null });
      setCar(record);
    });
    return () => controller.abort();
  }, [id, version]);

  const options = useMemo(
    () => free.filter((row) => !fitted.deviceIds.includes(Number(row.id)))
      .map((row) => ({ value: Number(row.id), label: `${String(row.phone)} ${String(row.deviceName ?? '')}`.trim() })),
    [free, fitted],
  );

  if (!id || missing) return <Result status="404" title={t('fleet:carEdit.notFound')} />;
  if (!car) return <Spin style={{ display: 'block', margin: 48 }} />;
  const editable = can('car', 'update');

  const save = async () => {
    setSaving(true);
    const reply = await saveCarDevices(id, fitted.deviceIds, fitted.master);
    setSaving(false);
    if (reply.code === 0) {
      void message.success(t('fleet:done.saved'));
      setVersion((v) => v + 1);
    } else {
      notification.error({ title: t('common:request.errorTitle'), description: reply.message });
    }
  };

  const rows = fitted.deviceIds.map((deviceId) => ({ id: deviceId, ...known.get(deviceId) }));
  return (
    <Card
      title={`${t('fleet:carEdit.title')}: ${String(car.plateNumber)}`}
      extra={<Link to="/list/car">{t('fleet:action.back')}</Link>}
      data-testid="car-edit"
    >
      <Descriptions size="small" column={3} style={{ marginBottom: 16 }}>
        <Descriptions.Item label={t('fleet:car.fields.plateNumber')}>{String(car.plateNumber)}</Descriptions.Item>
        <Descriptions.Item label={t('fleet:car.fields.vin')}>{String(car.vin ?? '')}</Descriptions.Item>
        <Descriptions.Item label={t('fleet:car.fields.groupName')}>{String(car.groupName ?? '')}</Descriptions.Item>
        <Descriptions.Item label={t('fleet:car.fields.driverName')}>{String(car.driverName ?? '')}</Descriptions.Item>
      </Descriptions>
      <Table
        rowKey="id"
        size="small"
        pagination={false}
        dataSource={rows}
        locale={{ emptyText: t('fleet:carEdit.noDevices') }}
        columns={[
          { key: 'phone', title: t('fleet:device.fields.phone'), dataIndex: 'phone' },
          { key: 'deviceSn', title: t('fleet:device.fields.deviceSn'), dataIndex: 'deviceSn' },
          { key: 'deviceName', title: t('fleet:device.fields.deviceName'), dataIndex: 'deviceName' },
          { key: 'master', title: t('fleet:carEdit.master'),
            render: (_: unknown, row: { id: number }) => (fitted.master === row.id ? <Tag color="blue">{t('fleet:carEdit.master')}</Tag> : null) },
          { key: 'actions', title: t('list:actions'), render: (_: unknown, row: { id: number }) => editable && (
            <Space size={0}>
              {fitted.master !== row.id && (
                <Button type="link" data-testid={`device-master-${row.id}`} onClick={() => setFitted(makeMaster(fitted, row.id))}>
                  {t('fleet:action.setMaster')}
                </Button>
              )}
              <Button type="link" danger data-testid={`device-detach-${row.id}`} onClick={() => setFitted(detach(fitted, row.id))}>
                {t('fleet:action.detach')}
              </Button>
            </Space>
          ) },
        ]}
      />
      {editable && (
        <Space style={{ marginTop: 16 }} wrap>
          <Select
            showSearch={{ optionFilterProp: 'label' }}
            style={{ minWidth: 260 }}
            placeholder={t('fleet:carEdit.pickDevice')}
            options={options}
            value={pick}
            onChange={setPick}
            data-testid="device-pick"
          />
          <Button disabled={pick === undefined} data-testid="device-attach" onClick={() => {
            if (pick !== undefined) setFitted(attach(fitted, pick));
            setPick(undefined);
          }}>
            {t('fleet:action.attach')}
          </Button>
          <Button type="primary" loading={saving} onClick={() => void save()} data-testid="car-devices-save">
            {t('fleet:action.save')}
          </Button>
        </Space>
      )}
    </Card>
  );
}
