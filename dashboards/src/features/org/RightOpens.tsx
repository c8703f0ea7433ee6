import { Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { menuTitle } from '../../i18n/menuTitle';
import type { CatalogueEntry } from './api';

/**
 * What granting a permission code opens, for the role editor: its screens (menu titles, with the
 * action a screen needs when only one does) and the data those screens read with it (rights implied
 * by the server, api/rights.py, which add no menu entry and cannot be granted on).
 */
export default function RightOpens({ entry, catalogue }: { entry: CatalogueEntry; catalogue: CatalogueEntry[] }) {
  const { t } = useTranslation('org');
  const screens = (entry.opens ?? []).map(({ title, action }) =>
    action ? `${menuTitle(t, title)} (${t(`actions.${action}`)})` : menuTitle(t, title));
  const reads = (entry.implies ?? []).map(({ code, actions }) => {
    const name = catalogue.find((other) => other.code === code)?.name ?? code;
    return `${name} (${actions.map((action) => t(`actions.${action}`)).join(', ')})`;
  });
  return (
    <div data-testid={`opens-${entry.code}`} style={{ maxWidth: 360 }}>
      <Typography.Text type={screens.length ? undefined : 'secondary'}>
        {screens.length ? `${t('permission.opens.screens')}: ${screens.join(', ')}` : t('permission.opens.nothing')}
      </Typography.Text>
      {reads.length > 0 && (
        <div>
          <Typography.Text type="secondary" data-testid={`implies-${entry.code}`}>
            {`${t('permission.opens.alsoReads')}: ${reads.join(', ')}`}
          </Typography.Text>
        </div>
      )}
    </div>
  );
}
