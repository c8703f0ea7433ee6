import { useTranslation } from 'react-i18next';
import { loadable } from '../../components/loadable';
import LoadingDialog from '../../components/LoadingDialog';
import type { CarRow } from '../map/model/types';
import type { MediaMode } from './VehicleMediaDialog';

interface Props { mode: MediaMode; car: CarRow; onClose: () => void }

/** The dialog's frame while the player's code loads. */
function LoadingMediaDialog({ mode, car, onClose }: Props) {
  const { t } = useTranslation('map');
  return <LoadingDialog title={t(`dialogs.${mode}`, { plate: car.plateNumber })} width={mode === 'video' ? 900 : 560} onClose={onClose} />;
}

/** The live video, listen and intercom dialogs (VehicleMediaDialog.tsx), their player (mpegts.js) loaded on first use. */
export const LoadedMediaDialog = loadable<Props>(
  () => import('./VehicleMediaDialog').then((module) => module.VehicleMediaDialog),
  LoadingMediaDialog,
);
