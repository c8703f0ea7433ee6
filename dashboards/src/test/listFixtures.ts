import type { EntityMeta, FieldMeta } from '../features/list/types';

/** A field of a meta answer with the server's defaults. */
export function field(name: string, over: Partial<FieldMeta> = {}): FieldMeta {
  return {
    name, type: 'str', label: '', required: false, maxLength: null, pattern: null, enum: null, minimum: null,
    maximum: null, unique: false, ref: null, create: false, update: false, listable: true, filterable: true,
    sortable: true, importable: false, exportable: false, ...over,
  };
}

/** The catalogue declaration as api/query/entities.py catalogue() answers it. */
export const CATALOGUE: EntityMeta = {
  name: 'carModel',
  idField: 'id',
  permission: 'carModel',
  writable: true,
  fields: [
    field('id', { type: 'int', label: '编号' }),
    field('enterpriseId', { type: 'int', create: true, label: '企业' }),
    field('name', { required: true, maxLength: 64, create: true, update: true, label: '名称', importable: true, exportable: true }),
    field('code', { required: true, pattern: '[A-Za-z0-9_.-]{1,32}', unique: true, create: true, update: true, label: '编码', importable: true, exportable: true }),
    field('remark', { maxLength: 255, create: true, update: true, filterable: false, sortable: false, label: '备注', importable: true, exportable: true }),
    field('createTime', { type: 'time', label: '创建时间', exportable: true }),
  ],
};
