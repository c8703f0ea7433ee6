/**
 * Create / edit a fence (platform-spec §2 settings "fence"): its rules on the left, its area drawn on the
 * map on the right (circle, rectangle, polygon, route with segments, province / city / district). Saves
 * through the `fence` entity's generic routes; the server checks the geometry again (a 400 names the field).
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
import { FenceRuleFields } from './FenceRuleFields';
import { SegmentTable } from './SegmentTable';
import { bodyOf, NEW_FENCE, problemsOf, shapesFor, valuesOf, type FenceFormValues } from './fenceForm';
import type { Shape } from './geometry';
import { useFenceGeometry } from './useFenceGeometry';

interface Props {
  /** null: closed; {}: create; a record: edit it. */
  record: ListRecord | null;
  onClose: () => void;
  onSaved: () => void;
}

export default function FenceDrawer({ record, onClose, onSaved }: Props) {
  const { t } = useTranslation(['fence', 'list', 'common']);
  return (
    <Drawer open={record !== null} onClose={onClose} destroyOnHidden size={1100} data-testid="fence-drawer"
      title={t(record && record.id !== undefined ? 'fence.edit' : 'fence.create')}>
      {record !== null && <FenceEditor record={record} onClose={onClose} onSaved={onSaved} />}
    </Drawer>
  );
}

function FenceEditor({ record, onClose, onSaved }: { record: ListRecord; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation(['fence', 'list', 'common']);
  const { message, notification } = App.useApp();
  const ownEnterprise = useSession().user?.enterpriseId;
  const creating = record.id === undefined || record.id === null;
  const [initial] = useState<FenceFormValues>(() => (creating ? { ...NEW_FENCE, enterpriseId: ownEnterprise } : valuesOf(record)));
  const [form] = Form.useForm<FenceFormValues>();
  const shape = (Form.useWatch<Shape | undefined>('shape', form) ?? initial.shape);
  const fenceType = Form.useWatch<number | undefined>('fenceType', form) ?? initial.fenceType;
  const area = useFenceGeometry(shape, creating ? undefined : initial.shape, record.geometry);
  const [saving, setSaving] = useState(false);
  const [problems, setProblems] = useState<string[]>([]);

  const save = async () => {
    let values: FenceFormValues;
    try {
      values = { ...initial, ...(await form.validateFields()) };
    } catch {
      return;
    }
    const found = problemsOf(values, area.geometry);
    setProblems([...new Set(found.map((p) => p.key))]);
    if (found.length > 0 || !area.geometry) return;
    const body = bodyOf(values, area.geometry);
    if (!creating) delete body.enterpriseId;
    setSaving(true);
    const reply = creating ? await createRecord('fence', body) : await updateRecord('fence', record.id, body);
    setSaving(false);
    if (reply.code === 0) {
      void message.success(t('fence.saved'));
      onSaved();
      return;
    }
    const field = (reply.data as { field?: string } | null)?.field;
    if (field && field in values) form.setFields([{ name: field as keyof FenceFormValues, errors: [reply.message] }]);
    else notification.error({ title: t('common:request.errorTitle'), description: reply.message });
  };

  return (
    <Form form={form} layout="vertical" initialValues={initial} data-testid="fence-form"
      onValuesChange={(changed: Partial<FenceFormValues>) => {
        // A route fence is a route and a route is a route fence (0040_fences.sql): the type picks the shapes.
        if (changed.fenceType !== undefined && !shapesFor(changed.fenceType).includes(form.getFieldValue('shape'))) {
          form.setFieldValue('shape', shapesFor(changed.fenceType)[changed.fenceType === 4 ? 0 : 2] ?? 'polygon');
        }
      }}>
      <Row gutter={16}>
        <Col span={9}>
          <Form.Item name="name" label={t('fence.fields.name')} rules={[{ required: true, whitespace: true, max: 64 }]}>
            <Input data-testid="fence-field-name" maxLength={64} />
          </Form.Item>
          {creating && (
            <Form.Item name="enterpriseId" label={t('fence.fields.enterpriseId')} rules={[{ required: true }]}>
              <EnterpriseSelect testId="fence-field-enterpriseId" />
            </Form.Item>
          )}
          <FenceRuleFields />
          <Form.Item name="remark" label={t('fence.fields.remark')}>
            <Input.TextArea maxLength={250} data-testid="fence-field-remark" />
          </Form.Item>
        </Col>
        <Col span={15}>
          <Form.Item name="shape" label={t('fence.fields.shape')}>
            <Select data-testid="fence-field-shape"
              options={shapesFor(fenceType).map((s) => ({ value: s, label: t(`fence.enums.shape.${s}`) }))} />
          </Form.Item>
          <p className="fence-hint">{t(shape === 'route' ? 'fence.routeHint' : shape === 'district' ? 'fence.districtHint' : 'fence.drawHint')}</p>
          {shape === 'district' && (
            <DistrictPicker testId="fence-field-district" value={area.districtId} onChange={area.setDistrictId} />
          )}
          <FenceMap shape={shape} drawn={area.drawn} geometry={area.stored} onChange={area.onDrawn} onCoord={area.setCoord}
            districtId={area.districtId} />
          {shape === 'route' && (
            <SegmentTable route={area.drawn?.shape === 'route' ? area.drawn : null} onChange={(route) => area.setDrawn(route)} />
          )}
          {problems.length > 0 && (
            <ul className="fence-problems" data-testid="fence-problems">
              {problems.map((key) => <li key={key}>{t(`fence.${key}`)}</li>)}
            </ul>
          )}
        </Col>
      </Row>
      <Space>
        <Button onClick={onClose} data-testid="fence-cancel">{t('common:cancel')}</Button>
        <Button type="primary" loading={saving} onClick={() => void save()} data-testid="fence-save">{t('list:save')}</Button>
      </Space>
    </Form>
  );
}
