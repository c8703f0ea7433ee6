import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { registerLink } from '../../features/fleet/registerPrefill';
import ListPage from '../../features/list/ListPage';
import { defineListScreen } from '../../features/list/types';

export const ENTITY = 'refusedRegistration';

/**
 * Terminals refused because no device has their phone (entity refusedRegistration, gateway/unknown_terminals.py):
 * why a terminal does not come online, for the root enterprise's administrators (the server answers anyone else
 * 403). Read-only; each row links to the device form filled in with what the terminal reported.
 */
export default function RefusedRegistrationList() {
  const { t } = useTranslation('fleet');
  const screen = useMemo(() => defineListScreen({
    entity: ENTITY,
    namespace: 'fleet:refused',
    columns: ['phone', 'reason', 'msgId', 'terminalId', 'manufacturerId', 'terminalModel', 'plateNumber', 'imei',
      'protocolVersion', 'peer', 'attempts', 'firstSeen', 'lastSeen'],
    filters: ['phone', 'reason', 'terminalId'],
    features: { create: false, edit: false, delete: false, import: false, export: false },
    // no action directive: the screen is read-only (create off), and only holders of device:add read its rows
    rowActions: [{ key: 'register', label: t('refused.register'), href: registerLink,
      visible: (record) => record.reason === 'unknown_phone' }],
  }), [t]);
  return <ListPage screen={screen} />;
}
