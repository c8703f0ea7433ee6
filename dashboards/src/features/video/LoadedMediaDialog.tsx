import { Modal, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { loadable } from '../../components/loadable';
import type { CarRow } from '../map/model/types';
import type { MediaMode } from './VehicleMediaDialog';

interface Props { mode: MediaMode; car: CarRow; onClose: () => void }

/** The dialog's frame, its title and a spinner, while the player's code loads: a click shows its dialog at once. */
function LoadingMediaDialog({ mode, car, onClose }: Props) {
  const { t } = useTranslation('map');
  return (
    <Modal open title={t(`dialogs.${mode}`, { plate: car.plateNumber })} onCancel={onClose} footer={null} width={mode === 'video' ? 900 : 560}>
      <Spin style={{ display: 'block', margin: 24 }} data-testid="video-dialog-loading" />
    </Modal>
  );
}

/** The live video, listen and intercom dialogs (VehicleMediaDialog.tsx), their player (mpegts.js) loaded on first use. */
export const LoadedMediaDialog = loadable<Props>(
  () => import('./VehicleMediaDialog').then((module) => module.VehicleMediaDialog),
  LoadingMediaDialog,
);
