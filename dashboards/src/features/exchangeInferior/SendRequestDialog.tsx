import { App, Form, Input, InputNumber, Modal } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CONTENT_MAX, sendRequest, type RequestKind } from './api';

export interface SendRequestDialogProps {
  platform: { id: number; name: string } | null;
  kind: RequestKind;
  onClose: () => void;
  onSent: () => void;
}

interface Values {
  content: string;
  answerMinutes?: number;
}

/** Sends an inspection (查岗, 0x9301, with the minutes the inferior has to answer) or a message (0x9302) to an
 * inferior platform; it is queued and sent while the platform is linked, its answer shows in the request list. */
export default function SendRequestDialog({ platform, kind, onClose, onSent }: SendRequestDialogProps) {
  const { t } = useTranslation('inferior');
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (platform) form.setFieldsValue({ content: '', answerMinutes: 10 });
  }, [platform, form]);

  const submit = async () => {
    if (!platform) return;
    const values = await form.validateFields();
    setSaving(true);
    try {
      const reply = await sendRequest(platform.id, kind, values.content.trim(), values.answerMinutes);
      if (reply.code === 0) {
        void message.success(t('send.queued'));
        onSent();
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal open={platform !== null} title={t(`send.${kind}Title`, { name: platform?.name ?? '' })} onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)} okText={t('send.ok')} confirmLoading={saving} destroyOnHidden>
      <Form form={form} layout="vertical" data-testid="send-request-form">
        <Form.Item name="content" label={t('send.content')}
          rules={[{ required: true, whitespace: true, message: t('send.contentRequired') }]}>
          <Input.TextArea rows={4} showCount maxLength={CONTENT_MAX} data-testid="send-request-content" />
        </Form.Item>
        {kind === 'inspection' && (
          <Form.Item name="answerMinutes" label={t('send.answerMinutes')} rules={[{ required: true }]}>
            <InputNumber min={1} max={255} data-testid="send-request-minutes" />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}
