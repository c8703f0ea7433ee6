/**
 * Create / edit a label point (platform-spec §2 settings "labelPoint", §9 types 1-6 and business types 1-6):
 * the type picks what is drawn (point, circle, rectangle, polygon, route, province / city / district).
 */
import { App, Button, Col, Drawer, Form, Input, Row, Select, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/useSession';
import EnterpriseSelect from '../list/EnterpriseSelect';
import { createRecord, updateRecord } from '../list/api';
import type { ListRecord } from '../list/types';
import { DistrictPicker } from './DistrictPicker';
import { FenceMap } from './FenceMap';
import { LABEL_POINT_BUSINESS_TYPES, LABEL_POINT_SHAPES } from './fenceForm';
import { useFenceGeometry } from './useFenceGeometry';

interface Values {
  name: string;
  enterpriseId?: number;
  pointType: number;
  businessType: number;
  remark?: string;
}

export default function LabelPointDrawer({ record, onClose, onSaved }: { record: ListRecord | null; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation('fence');
  return (
    <Drawer open={record !== null} onClose={onClose} destroyOnHidden size={1000} data-testid="label-point-drawer"
      title={t(record && record.id !== undefined ? 'labelPoint.edit' : 'labelPoint.create')}>
      {record !== null && <Editor record={record} onClose={onClose} onSaved={onSaved} />}
    </Drawer>
  );
}

function Editor({ record, onClose, onSaved }: { record: ListRecord; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation(['fence', 'list', 'common']);
  const { message, notification } = App.useApp();
  const ownEnterprise = useSession().user?.enterpriseId;
  const creating = record.id === undefined || record.id === null;
  const [initial] = useState<Values>(() => (creating
    ? { name: '', enterpriseId: ownEnterprise, pointType: 1, businessType: 1, remark: '' }
    : { name: String(record.name ?? ''), pointType: Number(record.pointType), businessType: Number(record.businessType), remark: String(record.remark ?? '') }));
  const [form] = Form.useForm<Values>();
  const pointType = Form.useWatch<number | undefined>('pointType', form) ?? initial.pointType;
  const shape = LABEL_POINT_SHAPES[pointType] ?? 'point';
  const area = useFenceGeometry(shape, creating ? undefined : LABEL_POINT_SHAPES[initial.pointType], record.geometry);
  const [saving, setSaving] = useState(false);
  const [missing, setMissing] = useState(false);

  const save = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    setMissing(!area.geometry);
    if (!area.geometry) return;
    const body: Record<string, unknown> = { ...values, name: values.name.trim(), geometry: area.geometry };
    if (!creating) delete body.enterpriseId;
    setSaving(true);
    const reply = creating ? await createRecord('labelPoint', body) : await updateRecord('labelPoint', record.id, body);
    setSaving(false);
    if (reply.code === 0) {
      void message.success(t('fence.saved'));
      onSaved();
    } else {
      notification.error({ title: t('common:request.errorTitle'), description: reply.message });
    }
  };

  return (
    <Form form={form} layout="vertical" initialValues={initial} data-testid="label-point-form">
      <Row gutter={16}>
        <Col span={8}>
          <Form.Item name="name" label={t('labelPoint.fields.name')} rules={[{ required: true, whitespace: true, max: 64 }]}>
            <Input data-testid="label-point-field-name" />
          </Form.Item>
          {creating && (
            <Form.Item name="enterpriseId" label={t('labelPoint.fields.enterpriseId')} rules={[{ required: true }]}>
              <EnterpriseSelect testId="label-point-field-enterpriseId" />
            </Form.Item>
          )}
          <Form.Item name="pointType" label={t('labelPoint.fields.pointType')}>
            <Select data-testid="label-point-field-pointType"
              options={Object.keys(LABEL_POINT_SHAPES).map((v) => ({ value: Number(v), label: t(`labelPoint.enums.pointType.${v}`) }))} />
          </Form.Item>
          <Form.Item name="businessType" label={t('labelPoint.fields.businessType')}>
            <Select data-testid="label-point-field-businessType"
              options={LABEL_POINT_BUSINESS_TYPES.map((v) => ({ value: v, label: t(`labelPoint.enums.businessType.${v}`) }))} />
          </Form.Item>
          <Form.Item name="remark" label={t('labelPoint.fields.remark')}>
            <Input.TextArea maxLength={250} />
          </Form.Item>
        </Col>
        <Col span={16}>
          <p>{t(shape === 'route' ? 'fence.routeHint' : shape === 'district' ? 'fence.districtHint' : 'fence.drawHint')}</p>
          {shape === 'district' && (
            <DistrictPicker testId="label-point-field-district" value={area.districtId} onChange={area.setDistrictId} />
          )}
          <FenceMap shape={shape} drawn={area.drawn} geometry={area.stored} onChange={area.onDrawn} onCoord={area.setCoord}
            districtId={area.districtId} />
          {missing && <p className="fence-problems" data-testid="fence-problems">{t(shape === 'district' ? 'fence.errors.noDistrict' : 'fence.errors.noGeometry')}</p>}
        </Col>
      </Row>
      <Space>
        <Button onClick={onClose}>{t('common:cancel')}</Button>
        <Button type="primary" loading={saving} onClick={() => void save()} data-testid="label-point-save">{t('list:save')}</Button>
      </Space>
    </Form>
  );
}

