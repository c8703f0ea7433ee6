import { App, Form, Input, Modal, Select } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { announceAlarmChanged } from './alarmEvents';
import { alarmId, confirmAlarm, DEFAULT_HANDLE_STATE, HANDLE_STATES, OPINION_MAX, type Alarm, type HandleState } from './api';

export interface HandleAlarmDialogProps {
  alarm: Pick<Alarm, 'id' | '_id' | 'plateNumber'> | null;
  open: boolean;
  onClose: () => void;
  /** Called after a successful save with the state chosen. */
  onDone: (state: HandleState) => void;
}

interface Values {
  state: HandleState;
  opinion?: string;
}

/**
 * The alarm-handling dialog (console-spec §4/§5 "Alarm confirm"): a state (1 processing, 2 finished by
 * default, 3 no action, 4 handle later) and a remark of at most 250 characters; the server records the
 * caller and sends 8203 when the alarm is confirmable. Success shows "保存成功！".
 */
export default function HandleAlarmDialog({ alarm, open, onClose, onDone }: HandleAlarmDialogProps) {
  const { t } = useTranslation('alarm');
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (open) form.setFieldsValue({ state: DEFAULT_HANDLE_STATE, opinion: '' });
  }, [open, form]);

  const submit = async () => {
    if (!alarm) return;
    const values = await form.validateFields();
    setSaving(true);
    try {
      const reply = await confirmAlarm(alarmId(alarm), values.state, (values.opinion ?? '').trim());
      if (reply.code === 0) {
        void message.success(t('handle.saved'));
        announceAlarmChanged();
        onDone(values.state);
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('handle.title', { plate: alarm?.plateNumber ?? '' })}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      okText={t('handle.ok')}
      confirmLoading={saving}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" initialValues={{ state: DEFAULT_HANDLE_STATE, opinion: '' }} data-testid="handle-alarm-form">
        <Form.Item name="state" label={t('handle.state')} rules={[{ required: true, message: t('handle.stateRequired') }]}>
          <Select
            data-testid="handle-alarm-state"
            options={HANDLE_STATES.map((value) => ({ value, label: t(`handleState.${value}`) }))}
          />
        </Form.Item>
        <Form.Item
          name="opinion"
          label={t('handle.opinion')}
          rules={[{ max: OPINION_MAX, message: t('handle.opinionMax', { max: OPINION_MAX }) }]}
        >
          <Input.TextArea rows={4} showCount maxLength={OPINION_MAX} data-testid="handle-alarm-opinion" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
