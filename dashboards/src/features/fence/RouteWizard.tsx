/**
 * The platform route wizard (business type 1: checked by the platform's fence step) and the route wizard
 * (business type 2: sent to the terminals as 0x8606), platform-spec §2, 4 steps each (the spec names the
 * count, not the contents; what the best fleet consoles do, docs/architecture.md): 1 draw the route and name
 * it, 2 each segment's corridor width, min / max time and speed limit, 3 the rules (attributes, time window,
 * night limit), 4 the vehicles it binds. The fence is created at the end, then the vehicles bound.
 */
import { App, Button, Form, Input, Modal, Space, Steps, TreeSelect } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/useSession';
import EnterpriseSelect from '../list/EnterpriseSelect';
import { createRecord } from '../list/api';
import type { ListRecord } from '../list/types';
import { useEnterpriseTree } from '../org/enterprises';
import { bindVehicles, queryAll } from './api';
import { pickedCarIds, pickerTree } from './binding';
import { FenceMap } from './FenceMap';
import { FenceRuleFields } from './FenceRuleFields';
import { SegmentTable } from './SegmentTable';
import { bodyOf, NEW_FENCE, problemsOf, ROUTE_FENCE_TYPE, type FenceFormValues } from './fenceForm';
import { useFenceGeometry } from './useFenceGeometry';

const STEPS = ['draw', 'segments', 'rules', 'bind'] as const;

export interface RouteWizardProps {
  businessType: 1 | 2;
  onClose: () => void;
  onDone: () => void;
}

export default function RouteWizard({ businessType, onClose, onDone }: RouteWizardProps) {
  const { t } = useTranslation(['fence', 'common', 'list']);
  const { message, notification } = App.useApp();
  const ownEnterprise = useSession().user?.enterpriseId;
  const [form] = Form.useForm<FenceFormValues>();
  const [initial] = useState<FenceFormValues>(() => ({
    ...NEW_FENCE, fenceType: ROUTE_FENCE_TYPE, shape: 'route', businessType, attributes: [3, 5], enterpriseId: ownEnterprise,
  }));
  const [step, setStep] = useState(0);
  const [problems, setProblems] = useState<string[]>([]);
  const [picked, setPicked] = useState<string[]>([]);
  const [cars, setCars] = useState<ListRecord[]>([]);
  const [saving, setSaving] = useState(false);
  const area = useFenceGeometry('route', undefined, null);
  const enterprises = useEnterpriseTree();
  const tree = useMemo(() => pickerTree(enterprises, cars, new Set()), [enterprises, cars]);
  useEffect(() => {
    const controller = new AbortController();
    void queryAll('car', {}, controller.signal).then(setCars);
    return () => controller.abort();
  }, []);

  const values = (): FenceFormValues => ({ ...initial, ...form.getFieldsValue(true) });
  // Each step checks what it sets before the next one opens.
  const stepProblems = (at: number): string[] => {
    const found = problemsOf(values(), area.geometry).filter((p) => {
      if (at === 0) return p.field === 'name' || (p.field === 'shape' && p.key === 'errors.noGeometry');
      if (at === 1) return p.field === 'shape';
      return true;
    });
    return [...new Set(found.map((p) => p.key))];
  };
  const next = async () => {
    try {
      await form.validateFields();
    } catch {
      return;
    }
    const found = stepProblems(step);
    setProblems(found);
    if (found.length === 0) setStep(step + 1);
  };
  const finish = async () => {
    const found = stepProblems(3);
    setProblems(found);
    if (found.length || !area.geometry) return;
    setSaving(true);
    const reply = await createRecord('fence', bodyOf(values(), area.geometry));
    if (reply.code !== 0) {
      setSaving(false);
      notification.error({ title: t('common:request.errorTitle'), description: reply.message });
      return;
    }
    const carIds = pickedCarIds(picked);
    if (carIds.length && reply.data) await bindVehicles(Number(reply.data.id), carIds);
    setSaving(false);
    void message.success(t('fence.saved'));
    onDone();
  };

  return (
    <Modal open onCancel={onClose} width={1100} footer={null} destroyOnHidden data-testid="route-wizard"
      title={t(businessType === 1 ? 'fence.platformRouteWizard' : 'fence.routeWizard')}>
      <Steps current={step} size="small" style={{ marginBottom: 16 }} data-testid="route-wizard-steps"
        items={STEPS.map((key) => ({ title: t(`wizard.${key}`) }))} />
      <Form form={form} layout="vertical" initialValues={initial} data-testid={`route-wizard-step-${step}`}>
        <div style={{ display: step === 0 ? 'block' : 'none' }}>
          <Space align="start">
            <Form.Item name="name" label={t('fence.fields.name')} rules={[{ required: true, whitespace: true, max: 64 }]}>
              <Input data-testid="wizard-name" style={{ width: 280 }} />
            </Form.Item>
            <Form.Item name="enterpriseId" label={t('fence.fields.enterpriseId')} rules={[{ required: true }]}>
              <EnterpriseSelect testId="wizard-enterprise" />
            </Form.Item>
          </Space>
          <p>{t('fence.routeHint')}</p>
          <FenceMap shape="route" drawn={area.drawn} onChange={area.onDrawn} onCoord={area.setCoord} />
        </div>
        {step === 1 && <SegmentTable route={area.drawn?.shape === 'route' ? area.drawn : null} onChange={(route) => area.setDrawn(route)} />}
        <div style={{ display: step === 2 ? 'block' : 'none' }}><FenceRuleFields routeOnly /></div>
        {step === 3 && (
          <TreeSelect data-testid="wizard-picker" treeData={tree} value={picked} onChange={(v: string[]) => setPicked(v)}
            treeCheckable showCheckedStrategy={TreeSelect.SHOW_CHILD} showSearch treeNodeFilterProp="title"
            placeholder={t('binding.pick')} style={{ width: '100%' }} />
        )}
      </Form>
      {problems.length > 0 && (
        <ul className="fence-problems" data-testid="fence-problems">{problems.map((key) => <li key={key}>{t(`fence.${key}`)}</li>)}</ul>
      )}
      <Space style={{ marginTop: 16 }}>
        {step > 0 && <Button data-testid="wizard-prev" onClick={() => setStep(step - 1)}>{t('wizard.prev')}</Button>}
        {step < 3 && <Button type="primary" data-testid="wizard-next" onClick={() => void next()}>{t('wizard.next')}</Button>}
        {step === 3 && <Button type="primary" loading={saving} data-testid="wizard-finish" onClick={() => void finish()}>{t('wizard.finish')}</Button>}
      </Space>
    </Modal>
  );
}
