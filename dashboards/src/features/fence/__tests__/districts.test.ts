import { describe, expect, it } from 'vitest';
import type { DistrictNode } from '../api';
import { districtLabel, districtOptions, districtPath, pickedArea } from '../districts';

// The shape of GET /api/common/districtTree.json: a municipality's districts directly under it.
const TREE: DistrictNode[] = [
  { adcode: '110000', name: '北京市', children: [{ adcode: '110101', name: '东城区' }, { adcode: '110102', name: '西城区' }] },
  { adcode: '440000', name: '广东省', children: [
    { adcode: '440300', name: '深圳市', outline: false, children: [{ adcode: '440305', name: '南山区' }] },
    { adcode: '441900', name: '东莞市' },
  ] },
  { adcode: '710000', name: '台湾省' },
];

describe('districtOptions', () => {
  it('makes every region a Cascader option valued by its adcode, leaves without children', () => {
    expect(districtOptions(TREE)[1]).toEqual({ value: '440000', label: '广东省', children: [
      { value: '440300', label: '深圳市', children: [{ value: '440305', label: '南山区' }] },
      { value: '441900', label: '东莞市' },
    ] });
    expect(districtOptions(TREE)[2]).toEqual({ value: '710000', label: '台湾省' });
  });
});

describe('districtPath', () => {
  it('finds the path from the province down to a district, a city or a province', () => {
    expect(districtPath(TREE, '440305')?.map((n) => n.adcode)).toEqual(['440000', '440300', '440305']);
    expect(districtPath(TREE, 440300)?.map((n) => n.adcode)).toEqual(['440000', '440300']);
    expect(districtPath(TREE, '110000')?.map((n) => n.adcode)).toEqual(['110000']);
  });

  it('answers null for an unknown or missing code (the picker opens empty)', () => {
    expect(districtPath(TREE, '999999')).toBeNull();
    expect(districtPath(TREE, null)).toBeNull();
    expect(districtPath(TREE, '')).toBeNull();
  });
});

describe('districtLabel', () => {
  it('writes the region with the regions above it, as an address does', () => {
    expect(districtLabel(TREE, '440305')).toBe('广东省深圳市南山区');
    expect(districtLabel(TREE, '110101')).toBe('北京市东城区');
    expect(districtLabel(TREE, '999999')).toBeNull();
  });
});

describe('pickedArea', () => {
  it('makes a province, a district or a city with an outline the area', () => {
    expect(pickedArea(TREE, ['440000'])).toEqual({ adcode: '440000', withoutOutline: null });
    expect(pickedArea(TREE, ['440000', '440300', '440305'])).toEqual({ adcode: '440305', withoutOutline: null });
    expect(pickedArea(TREE, ['440000', '441900'])).toEqual({ adcode: '441900', withoutOutline: null });
  });

  it('makes a city without an outline no area, naming it (the way on to its districts)', () => {
    expect(pickedArea(TREE, ['440000', '440300'])).toEqual({ adcode: null, withoutOutline: TREE[1].children?.[0] });
  });

  it('makes a cleared picker or an unknown code no area', () => {
    expect(pickedArea(TREE, [])).toEqual({ adcode: null, withoutOutline: null });
    expect(pickedArea(TREE, undefined)).toEqual({ adcode: null, withoutOutline: null });
    expect(pickedArea(TREE, ['999999'])).toEqual({ adcode: null, withoutOutline: null });
  });
});
