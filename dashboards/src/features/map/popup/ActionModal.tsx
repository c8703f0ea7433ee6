/** The popup buttons' dialogs, with the spec's titles; their contents come with later issues. */
import { Modal, Result } from 'antd';
import { useTranslation } from 'react-i18next';

export type VehicleAction = 'video' | 'photo' | 'intercom' | 'listen' | 'tts' | 'alarmSetting' | 'details';

export function ActionModal({ action, plate, onClose }: { action: VehicleAction | null; plate: string; onClose: () => void }) {
  const { t } = useTranslation('map');
  return (
    <Modal
      open={action !== null}
      title={action ? t(`dialogs.${action}`, { plate }) : ''}
      onCancel={onClose}
      onOk={onClose}
      okText={t('dialogs.ok')}
      cancelButtonProps={{ style: { display: 'none' } }}
      destroyOnHidden
    >
      <div data-testid="action-modal">
        <Result status="info" title={t('dialogs.comingLater')} />
      </div>
    </Modal>
  );
}
