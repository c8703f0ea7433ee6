import { Checkbox, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { checkContent, TEXT_MAX, TTS_HINT_MAX } from '../validation';
import { DeviceSelect } from './DeviceSelect';
import type { DialogBodyProps } from './types';

/** 下发信息到【plate】 / TTS语音广播: the content (required, at most 150 characters) and its flags. */
export function TextDialogBody({ devices, mode }: DialogBodyProps & { mode: 'text' | 'tts' }) {
  const { t } = useTranslation('command');
  return (
    <>
      <DeviceSelect devices={devices} />
      <Form.Item
        name="content"
        label={t('text.content')}
        extra={mode === 'tts' ? t('text.ttsHint', { max: TTS_HINT_MAX }) : t('text.hint', { max: TEXT_MAX })}
        rules={[
          {
            validator: (_, value) => {
              const problem = checkContent(value);
              return problem ? Promise.reject(new Error(t(problem, { max: TEXT_MAX }))) : Promise.resolve();
            },
          },
        ]}
      >
        <Input.TextArea rows={4} count={{ show: true, max: mode === 'tts' ? TTS_HINT_MAX : TEXT_MAX }} data-testid="text-content" />
      </Form.Item>
      {mode === 'text' && (
        <Form.Item label={t('text.flags')}>
          <Form.Item name="display" valuePropName="checked" initialValue noStyle>
            <Checkbox data-testid="text-display">{t('text.display')}</Checkbox>
          </Form.Item>
          <Form.Item name="tts" valuePropName="checked" initialValue={false} noStyle>
            <Checkbox data-testid="text-tts">{t('text.tts')}</Checkbox>
          </Form.Item>
          <Form.Item name="emergency" valuePropName="checked" initialValue={false} noStyle>
            <Checkbox data-testid="text-emergency">{t('text.emergency')}</Checkbox>
          </Form.Item>
        </Form.Item>
      )}
    </>
  );
}
