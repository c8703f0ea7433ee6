/**
 * Province / city / district from a picker (platform-spec §9 label point type 6, a fence of shape `district`):
 * a Cascader of the regions the server outlines (`GET /api/common/districtTree.json`, read once per session):
 * a province, a district or a city that has an outline is the area; a city without one (most: the data has no
 * city layer) leads on to its districts. And a stored region's name for the lists.
 */
import { Cascader, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DistrictNode } from './api';
import { districtLabel, districtOptions, districtPath, pickedArea } from './districts';
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
  // A city without an outline stays shown as picked (the way to its districts) while the area is none.
  const [unfinished, setUnfinished] = useState<{ path: string[]; region: DistrictNode } | null>(null);
  const stored = useMemo(() => (tree ? districtPath(tree, value)?.map((node) => node.adcode) : undefined), [tree, value]);
  const pick = (picked: (string | number)[] | undefined) => {
    const area = tree ? pickedArea(tree, picked) : { adcode: null, withoutOutline: null };
    setUnfinished(area.withoutOutline && picked ? { path: picked.map(String), region: area.withoutOutline } : null);
    onChange(area.adcode);
  };
  return (
    <>
      <Cascader data-testid={testId} options={options} value={unfinished?.path ?? stored} changeOnSelect showSearch
        loading={!tree} placeholder={t('fence.fields.district')} style={{ width: '100%', marginBottom: 8 }} onChange={pick} />
      {unfinished && (
        <Typography.Paragraph type="warning" data-testid={`${testId}-no-outline`}>
          {t('fence.districtNoOutline', { name: unfinished.region.name })}
        </Typography.Paragraph>
      )}
    </>
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
