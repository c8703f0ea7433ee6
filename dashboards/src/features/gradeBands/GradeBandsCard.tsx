import { App, Button, Card, Form, Input, InputNumber, Modal, Popconfirm, Space, Tag, TreeSelect, Typography } from 'antd';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../auth/access';
import { shownMessage } from '../list/api';
import { enterpriseNames, enterpriseOptions, useEnterpriseTree } from '../org/enterprises';
import { fetchBands, resetBands, saveBands, type BandsInEffect, type GradeBand } from './api';

const MAX_BANDS = 10;
const MAX_GRADE_CHARS = 8;

/** Platform-spec §2 settings "drivingGradeRule" with §9's per-enterprise dictionary type 50: the grades a day's
 * driving-behaviour score earns, for the chosen enterprise of the user's tree (its own bands, else its parent's,
 * else the platform's); a user who may keep dictionary entries sets them or returns to the inherited ones. The
 * daily report build grades by them from its next run. */
export default function GradeBandsCard() {
  const { t } = useTranslation('alarmSettings');
  const { message } = App.useApp();
  const access = useAccess();
  const nodes = useEnterpriseTree();
  const options = useMemo(() => enterpriseOptions(nodes), [nodes]);
  const names = useMemo(() => enterpriseNames(nodes), [nodes]);
  const [enterpriseId, setEnterpriseId] = useState<number | undefined>();
  const [bands, setBands] = useState<BandsInEffect | null>(null);
  const [editing, setEditing] = useState(false);
  const [saving, setSaving] = useState(false);
  const [form] = Form.useForm<{ grades: GradeBand[] }>();

  const load = useCallback((signal?: AbortSignal) => {
    void fetchBands(enterpriseId, signal).then((reply) => {
      if (reply.code === 0 && reply.data) setBands(reply.data);
    });
  }, [enterpriseId]);
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const own = bands?.source === 'own';
  const canSave = access.can('dictionary', own ? 'update' : 'add');
  const canReset = own && access.can('dictionary', 'delete');
  // A subsidiary's user does not see its parents in its tree: their bands read as a parent's, unnamed.
  const parentName = bands?.sourceEnterpriseId != null ? names.get(bands.sourceEnterpriseId) : undefined;
  const sourceText = bands && (bands.source === 'inherited'
    ? (parentName ? t('gradeBands.source.inherited', { name: parentName }) : t('gradeBands.source.inheritedParent'))
    : t(`gradeBands.source.${bands.source}`));

  const open = () => setEditing(true);
  const save = async () => {
    if (!bands) return;
    const { grades } = await form.validateFields();
    setSaving(true);
    const reply = await saveBands(bands, grades, t('gradeBands.entryName'));
    setSaving(false);
    if (reply.code !== 0) {
      void message.error(shownMessage(reply));
      return;
    }
    setEditing(false);
    void message.success(t('gradeBands.saved'));
    load();
  };
  const reset = async () => {
    if (!bands) return;
    const reply = await resetBands(bands);
    if (reply.code !== 0) {
      void message.error(shownMessage(reply));
      return;
    }
    void message.success(t('gradeBands.reset'));
    load();
  };

  return (
    <Card size="small" title={t('gradeBands.title')} data-testid="grade-bands" style={{ marginBottom: 12 }}
      extra={
        <Space wrap>
          {options.length > 0 && (nodes.length > 1 || (nodes[0]?.children.length ?? 0) > 0) && (
            <TreeSelect<number> data-testid="grade-bands-enterprise" size="small" showSearch treeNodeFilterProp="title"
              treeDefaultExpandAll style={{ minWidth: 200 }} treeData={options} placeholder={t('gradeBands.enterprise')}
              value={enterpriseId ?? bands?.enterpriseId} onChange={(id) => setEnterpriseId(id ?? undefined)} />
          )}
          {canSave && bands && <Button size="small" onClick={open} data-testid="grade-bands-edit">{t('gradeBands.edit')}</Button>}
          {canReset && (
            <Popconfirm title={t('gradeBands.resetConfirm')} onConfirm={() => void reset()}
              okButtonProps={{ 'data-testid': 'grade-bands-reset-ok' } as Record<string, string>}>
              <Button size="small" data-testid="grade-bands-reset">{t('gradeBands.resetButton')}</Button>
            </Popconfirm>
          )}
        </Space>
      }>
      {bands && (
        <Space wrap size={[8, 8]}>
          {bands.grades.map((band) => (
            <Tag key={band.grade} color="blue" data-testid="grade-band">
              {t('gradeBands.band', { grade: band.grade, min: band.minScore })}
            </Tag>
          ))}
          <Typography.Text type="secondary" data-testid="grade-bands-source">{sourceText}</Typography.Text>
        </Space>
      )}
      <Modal open={editing} title={t('gradeBands.editTitle')} onCancel={() => setEditing(false)} onOk={() => void save()}
        okText={t('gradeBands.save')} confirmLoading={saving} destroyOnHidden
        okButtonProps={{ 'data-testid': 'grade-bands-save' } as Record<string, string>}>
        <Typography.Paragraph type="secondary">{t('gradeBands.hint')}</Typography.Paragraph>
        <Form form={form} layout="inline" preserve={false} initialValues={{ grades: bands?.grades ?? [] }}>
          <Form.List name="grades" rules={[{ validator: async (_rule, grades: GradeBand[] | undefined) => {
            if (!grades?.length) throw new Error(t('gradeBands.needOne'));
            if (!grades.some((g) => g?.minScore === 0)) throw new Error(t('gradeBands.needZero'));
          } }]}>
            {(fields, { add, remove }, { errors }) => (
              <Space orientation="vertical" style={{ width: '100%' }}>
                {fields.map((field, index) => (
                  <Space key={field.key} align="baseline" data-testid="grade-band-row">
                    <Form.Item name={[field.name, 'grade']} label={t('gradeBands.grade')}
                      rules={[{ required: true, whitespace: true, max: MAX_GRADE_CHARS, message: t('gradeBands.gradeRule', { max: MAX_GRADE_CHARS }) }]}>
                      <Input style={{ width: 90 }} maxLength={MAX_GRADE_CHARS} data-testid={`grade-band-grade-${index}`} />
                    </Form.Item>
                    <Form.Item name={[field.name, 'minScore']} label={t('gradeBands.minScore')}
                      rules={[{ required: true, message: t('gradeBands.minRule') }]}>
                      <InputNumber min={0} max={100} style={{ width: 90 }} data-testid={`grade-band-min-${index}`} />
                    </Form.Item>
                    <Button type="link" onClick={() => remove(field.name)} data-testid={`grade-band-remove-${index}`}>
                      {t('gradeBands.remove')}
                    </Button>
                  </Space>
                ))}
                {fields.length < MAX_BANDS && (
                  <Button type="dashed" onClick={() => add({ grade: '', minScore: 0 })} data-testid="grade-band-add">
                    {t('gradeBands.add')}
                  </Button>
                )}
                <Form.ErrorList errors={errors} />
              </Space>
            )}
          </Form.List>
        </Form>
      </Modal>
    </Card>
  );
}
