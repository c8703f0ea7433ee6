/** The popup buttons' dialogs: the command dialogs (features/command); video, listen and intercom (features/video). */
import { Modal, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { CommandDialog } from '../../command/CommandDialog';
import { COMMAND_ACTIONS, type CommandAction } from '../../command/payloads';
import type { CarRow } from '../model/types';
import { LoadedMediaDialog } from '../../video/LoadedMediaDialog';

export type VehicleAction = 'video' | 'photo' | 'intercom' | 'listen' | 'tts' | 'text' | 'alarmSetting' | 'details';

const isCommand = (action: VehicleAction | null): action is CommandAction =>
  action !== null && (COMMAND_ACTIONS as readonly string[]).includes(action);

export function ActionModal({ action, car, onClose }: { action: VehicleAction | null; car: CarRow | null; onClose: () => void }) {
  const { t } = useTranslation('map');
  if (isCommand(action) && car) return <CommandDialog key={`${action}-${car.carId}`} action={action} car={car} onClose={onClose} />;
  if ((action === 'video' || action === 'listen' || action === 'intercom') && car) {
    return <LoadedMediaDialog key={`${action}-${car.carId}`} mode={action} car={car} onClose={onClose} />;
  }
  return (
    <Modal
      open={action !== null}
      title={action ? t(`dialogs.${action}`, { plate: car?.plateNumber ?? '' }) : ''}
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
