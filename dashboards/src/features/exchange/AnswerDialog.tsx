import { Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ListRecord } from '../list/types';
import { answerInspection } from './api';

interface Props {
  record: ListRecord | null;
  onClose: (answered: boolean) => void;
}

/** Answers one open inspection from the inspection list (the pop-up answers the same way). */
export default function AnswerDialog({ record, onClose }: Props) {
  const { t } = useTranslation('exchange');
  const [answer, setAnswer] = useState('');
  const [sending, setSending] = useState(false);
  const close = (answered: boolean) => {
    setAnswer('');
    onClose(answered);
  };
  const submit = async () => {
    if (!record || !answer.trim()) return;
    setSending(true);
    const reply = await answerInspection(Number(record.id), answer.trim());
    setSending(false);
    if (reply.code === 0 || reply.code === 409) close(true); // 409: answered meanwhile or past its deadline
  };
  return (
    <Modal open={record !== null} title={t('inspection.answerTitle')} onCancel={() => close(false)} onOk={() => void submit()}
      okText={t('inspection.submit')} okButtonProps={{ disabled: !answer.trim(), loading: sending }}
      destroyOnHidden data-testid="answer-dialog">
      <Typography.Paragraph strong>{String(record?.question ?? '')}</Typography.Paragraph>
      <Input.TextArea rows={3} maxLength={1000} value={answer} onChange={(e) => setAnswer(e.target.value)}
        placeholder={t('inspection.placeholder')} data-testid="answer-text" />
    </Modal>
  );
}
