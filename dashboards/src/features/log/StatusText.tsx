import { useTranslation } from 'react-i18next';
import { describeStatus } from './statusBits';

/** A position's state bits as the descriptions of its set bits. */
export default function StatusText({ bits }: { bits: unknown }) {
  const { t } = useTranslation('log');
  const text = describeStatus(typeof bits === 'number' ? bits : null, t).join(t('log:statusSeparator'));
  return <span data-testid="status-bits">{text}</span>;
}
