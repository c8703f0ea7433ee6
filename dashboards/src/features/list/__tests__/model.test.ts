// @vitest-environment jsdom
import dayjs from 'dayjs';
import i18n from 'i18next';
import { afterEach, describe, expect, test } from 'vitest';
import '../../../i18n';
import {
  bodyOf,
  columnPlan,
  conditionsOf,
  failedField,
  fieldTitle,
  filterFields,
  formFields,
  PAGE_SIZE,
  PAGE_SIZE_OPTIONS,
  rulesFor,
  screenKey,
  totalText,
  widgetOf,
} from '../model';
import { CATALOGUE, field } from '../../../test/listFixtures';
import type { FieldMeta } from '../types';

const t = i18n.t.bind(i18n);
afterEach(async () => {
  await i18n.changeLanguage('zh-CN');
});

describe('defaults from the declaration', () => {
  test('columns are the listable fields but the id and the tenant; a screen may list its own', () => {
    expect(columnPlan(CATALOGUE, {}).map((c) => c.field.name)).toEqual(['name', 'code', 'remark', 'createTime']);
    const own = columnPlan(CATALOGUE, { columns: ['code', { field: 'name', width: 200 }] });
    expect(own.map((c) => [c.field.name, c.decl?.width ?? null])).toEqual([['code', null], ['name', 200]]);
    expect(() => columnPlan(CATALOGUE, { columns: ['nope'] })).toThrow(/no field 'nope'/);
  });

  test('filters are the filterable fields, the form the writable ones', () => {
    expect(filterFields(CATALOGUE, {}).map((f) => f.name)).toEqual(['name', 'code', 'createTime']);
    expect(formFields(CATALOGUE, {}).map((f) => f.name)).toEqual(['name', 'code', 'remark']);
    expect(formFields(CATALOGUE, { form: ['code'] }).map((f) => f.name)).toEqual(['code']);
  });

  test('widgets follow type, enum and reference', () => {
    expect(widgetOf(field('a'))).toBe('text');
    expect(widgetOf(field('a', { type: 'int' }))).toBe('number');
    expect(widgetOf(field('a', { type: 'int', enum: [0, 1] }))).toBe('select');
    expect(widgetOf(field('a', { type: 'int', ref: 'carModel' }))).toBe('ref');
    expect(widgetOf(field('a', { type: 'json', ref: 'carView' }))).toBe('refs'); // a list of references
    expect(widgetOf(field('a', { type: 'json' }))).toBe('tags'); // a list of words (addresses)
    expect(widgetOf(field('a', { type: 'bool' }))).toBe('switch');
    expect(widgetOf(field('a', { type: 'time' }))).toBe('time');
  });
});

describe('titles', () => {
  test("the screen's key first, then the framework's, then the declaration's label", () => {
    expect(screenKey('catalogue:carModel', 'fields.name')).toBe('catalogue:carModel.fields.name');
    expect(screenKey('catalogue', 'fields.name')).toBe('catalogue:fields.name');
    expect(fieldTitle(t, 'catalogue:carModel', field('name', { label: '名称' }))).toBe('车辆型号');
    expect(fieldTitle(t, 'catalogue:carModel', field('remark'))).toBe('备注');
    expect(fieldTitle(t, 'catalogue:carModel', field('vin', { label: '车架号' }))).toBe('车架号');
    expect(fieldTitle(t, 'catalogue:carModel', field('vin'))).toBe('vin');
  });
});

describe('rules from the declaration', () => {
  type Rule = { required?: boolean; max?: number; min?: number; pattern?: RegExp; type?: string; message?: string };
  const rules = (f: FieldMeta) => rulesFor(f, 'X', t) as Rule[];

  test('required, length and a whole-value pattern', () => {
    const [required, pattern] = rules(CATALOGUE.fields[3]);
    expect(required).toEqual({ required: true, message: '请输入X' });
    expect(pattern.message).toBe('X格式不正确');
    expect(pattern.pattern?.test('J6P')).toBe(true);
    expect(pattern.pattern?.test('J6 P')).toBe(false);
    expect(rules(field('c', { pattern: 'a+' }))[0].pattern?.test('xaax')).toBe(false); // anchored like re.fullmatch
    expect(rules(CATALOGUE.fields[2])[1]).toEqual({ max: 64, message: 'X最多 64 个字符' });
  });

  test('numbers within minimum and maximum', () => {
    expect(rules(field('speed', { type: 'int', minimum: 0, maximum: 300 }))).toEqual([
      { type: 'number', min: 0, max: 300, message: 'X应在 0 到 300 之间' },
    ]);
    expect(rules(field('speed', { type: 'int' }))).toEqual([]);
  });

  test('a pattern JavaScript cannot read is left to the server', () => {
    expect(rulesFor(field('c', { pattern: '(?P<x>a)' }), 'X', t)).toEqual([]);
  });
});

describe('requests', () => {
  test('filter values become conditions: text contains, times a range, the rest equality', () => {
    const fields = [field('name'), field('state', { type: 'int', enum: [0, 1] }), field('createTime', { type: 'time' })];
    const start = dayjs('2026-01-01T00:00:00Z');
    const end = dayjs('2026-01-02T00:00:00Z');
    expect(conditionsOf(fields, { name: ' J6 ', state: 0, createTime: [start, end] })).toEqual({
      'name.like': 'J6',
      'state.eq': 0,
      rangeConditions: [{ fieldName: 'createTime', start: '2026-01-01T00:00:00.000Z', end: '2026-01-02T00:00:00.000Z' }],
    });
    expect(conditionsOf(fields, { name: '  ', state: undefined, createTime: null })).toEqual({});
  });

  test('a save sends what the operation accepts; empty optional values are left out or cleared', () => {
    const form = formFields(CATALOGUE, {});
    expect(bodyOf(form, { name: ' J6 ', code: 'J6', remark: '' }, true)).toEqual({ name: 'J6', code: 'J6' });
    expect(bodyOf(form, { name: 'J6', code: 'J6', remark: '' }, false)).toEqual({ name: 'J6', code: 'J6', remark: null });
    expect(bodyOf([field('enterpriseId', { create: true })], { enterpriseId: 'x' }, false)).toEqual({});
  });

  test("the failed field is the server's data.field when the form has it", () => {
    const form = formFields(CATALOGUE, {});
    expect(failedField({ field: 'code' }, form)).toBe('code');
    expect(failedField({ field: 'enterpriseId' }, form)).toBeNull();
    expect(failedField(null, form)).toBeNull();
  });
});

describe('paging (platform-spec §9)', () => {
  test('page size 10 with options 10/20/30/50/100', () => {
    expect(PAGE_SIZE).toBe(10);
    expect(PAGE_SIZE_OPTIONS).toEqual([10, 20, 30, 50, 100]);
  });

  test('the total reads "共 N 条数据" in zh-CN and is translated', async () => {
    expect(totalText(t, 42)).toBe('共 42 条数据');
    await i18n.changeLanguage('zh-HK');
    expect(totalText(t, 42)).toBe('共 42 條數據');
    await i18n.changeLanguage('en-US');
    expect(totalText(t, 1)).toBe('Total: 1');
  });
});
