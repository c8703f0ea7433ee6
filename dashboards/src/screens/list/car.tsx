import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { carDetailUrl } from '../../features/carDetail/routing';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'car';

/**
 * Platform-spec §2 list "car" (with edit): the vehicles of the caller's subtree. The drawer edits the
 * vehicle's own fields; "详情" opens the vehicle detail page (`/list/carDetail?carId=`, which moves to
 * its protocol's variant), "终端管理" the edit page of its devices and master device (`/list/car/edit?id=`).
 * Import takes groupName / masterDevicePhone to name a group and a terminal by their keys. A new vehicle
 * belongs to the enterprise chosen in the drawer (the caller's own by default, any of its subtree).
 */
export default function CarList() {
  const { t } = useTranslation('detail');
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'fleet:car',
    columns: ['plateNumber', 'plateColor', 'vin', 'grade', 'type', 'enterpriseId', 'groupName', 'driverName', 'masterDevicePhone', 'createTime'],
    filters: ['plateNumber', 'vin', 'plateColor', 'groupId'],
    form: ['enterpriseId', 'plateNumber', 'plateColor', 'vin', 'grade', 'type', 'carModelId', 'carTypeId', 'groupId', 'driverId', 'iconId',
      'insuranceExpire', 'inspectionExpire'],
    detail: (record) => carDetailUrl(String(record.id), record.masterDeviceId as number | null | undefined),
    rowActions: [{ key: 'devices', label: t('links.devices'), href: (record) => `/list/car/edit?id=${String(record.id)}` }],
  }), [t]);
  return <ListPage screen={screen} />;
}
