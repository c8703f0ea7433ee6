/**
 * Province / city / district from a picker (platform-spec §9 label point type 6, a fence of shape `district`):
 * a Cascader of the regions the server outlines (`GET /api/common/districtTree.json`, read once per session),
 * any level may be chosen; and a stored region's name for the lists.
 */
import { Cascader } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { districtLabel, districtOptions, districtPath } from './districts';
import { useDistrictTree } from './useDistrictTree';

interface PickerProps {
  value: string | number | null;
  onChange: (adcode: string | null) => void;
  testId: string;
}

export function DistrictPicker({ value, onChange, testId }: PickerProps) {
  const { t } = useTranslation('fence');
  const tree = useDistrictTree();
  const options = useMemo(() => (tree ? districtOptions(tree) : []), [tree]);
  const path = useMemo(() => (tree ? districtPath(tree, value)?.map((node) => node.adcode) : undefined), [tree, value]);
  return (
    <Cascader data-testid={testId} options={options} value={path} changeOnSelect showSearch loading={!tree}
      placeholder={t('fence.fields.district')} style={{ width: '100%', marginBottom: 8 }}
      onChange={(picked) => onChange(picked?.length ? String(picked[picked.length - 1]) : null)} />
  );
}

/** A district fence's or label point's region as an address writes it ("Region: 广东省深圳市南山区"; its adcode
 * until the tree is read, or if the tree has no such region). */
export function DistrictName({ adcode, testId }: { adcode: unknown; testId: string }) {
  const { t } = useTranslation('fence');
  const tree = useDistrictTree();
  const code = typeof adcode === 'string' || typeof adcode === 'number' ? String(adcode) : '';
  const name = (tree ? districtLabel(tree, code) : null) ?? code;
  return <span data-testid={testId} data-adcode={code}>{t('fence.districtOf', { name })}</span>;
}
