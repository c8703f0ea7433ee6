import { App, Button, Drawer, Form, Space } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/useSession';
import { createRecord, updateRecord } from './api';
import EnterpriseSelect from './EnterpriseSelect';
import FieldInput from './FieldInput';
import { bodyOf, enumLabel, failedField, fieldHelp, fieldTitle, namespaceOf, rulesFor, TENANT_FIELD } from './model';
import type { EntityMeta, FieldMeta, ListRecord } from './types';

interface Props {
  meta: EntityMeta;
  namespace: string;
  fields: FieldMeta[];
  /** null: closed; {}: create; a record: edit it. */
  record: ListRecord | null;
  onClose: () => void;
  onSaved: () => void;
  /** The server's answer to a create. */
  onCreated?: (record: ListRecord) => void;
  /** The screen's console rules per field (i18n key of the message, or undefined). */
  validators?: Record<string, (value: unknown) => string | undefined>;
  /** Merged into every create body. */
  createDefaults?: Record<string, unknown>;
}

function initialValues(fields: FieldMeta[], record: ListRecord, creating: boolean): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    // a new record starts with what the server would store without the field (a switch shows it as saved)
    const value = creating && record[field.name] === undefined ? (field.default ?? undefined) : record[field.name];
    values[field.name] = field.type === 'time' && typeof value === 'string' ? dayjs(value) : value;
  }
  return values;
}

/**
 * The create/edit drawer built from the declaration. The server validates again: its 400/404/409
 * message goes on the field it names (`data.field`), or becomes an error notice.
 */
export default function RecordDrawer({ meta, namespace, fields, record, onClose, onSaved, onCreated, validators, createDefaults }: Props) {
  const { t } = useTranslation(['list', namespaceOf(namespace)]);
  const { message, notification } = App.useApp();
  const [form] = Form.useForm<Record<string, unknown>>();
  const [saving, setSaving] = useState(false);
  const id = record?.[meta.idField];
  const creating = id === undefined || id === null;
  const shown = fields.filter((f) => (creating ? f.create : f.update));
  // A new record's enterprise, when the form shows it: the screen's (the tree's selection), else the
  // caller's own; the user picks another of the subtree.
  const ownEnterprise = useSession().user?.enterpriseId;
  const initial = record === null ? undefined : creating
    ? { ...initialValues(shown, record, true), [TENANT_FIELD]: createDefaults?.[TENANT_FIELD] ?? ownEnterprise }
    : initialValues(shown, record, false);

  const save = async () => {
    let values: Record<string, unknown>;
    try {
      values = await form.validateFields();
    } catch {
      return; // antd shows the rules' messages on the fields
    }
    setSaving(true);
    const body = creating ? { ...createDefaults, ...bodyOf(shown, values, creating) } : bodyOf(shown, values, creating);
    const reply = creating ? await createRecord(meta.name, body) : await updateRecord(meta.name, id, body);
    setSaving(false);
    if (reply.code === 0) {
      void message.success(t(creating ? 'list:created' : 'list:updated'));
      if (creating && reply.data) onCreated?.(reply.data);
      onSaved();
      return;
    }
    const field = failedField(reply.data, shown);
    if (field) form.setFields([{ name: field, errors: [reply.message] }]);
    else notification.error({ title: t('common:request.errorTitle'), description: reply.message });
  };

  return (
    <Drawer
      open={record !== null}
      onClose={onClose}
      destroyOnHidden
      size={480}
      title={t(creating ? 'list:createTitle' : 'list:editTitle')}
      extra={
        <Space>
          <Button onClick={onClose} data-testid="record-cancel">{t('common:cancel')}</Button>
          <Button type="primary" loading={saving} onClick={() => void save()} data-testid="record-save">
            {t('list:save')}
          </Button>
        </Space>
      }
      data-testid="record-drawer"
    >
      <Form form={form} layout="vertical" onFinish={() => void save()} initialValues={initial}
        key={creating ? 'new' : String(id)}>
        {shown.map((field) => {
          const title = fieldTitle(t, namespace, field);
          // a write-only field (a password) left empty on edit keeps its value: not required there
          const rules = rulesFor(creating || !field.secret ? field : { ...field, required: false }, title, t);
          const check = validators?.[field.name];
          if (check) {
            rules.push({ validator: (_rule, value) => {
              const key = check(value);
              return key ? Promise.reject(new Error(t(key))) : Promise.resolve();
            } });
          }
          return (
            <Form.Item key={field.name} name={field.name} label={title} rules={rules}
              extra={fieldHelp(t, namespace, field)}>
              {field.name === TENANT_FIELD ? <EnterpriseSelect testId={`record-field-${field.name}`} /> : (
                <FieldInput field={field} mode="form" testId={`record-field-${field.name}`}
                  optionLabel={(v) => enumLabel(t, namespace, field, v)} />
              )}
            </Form.Item>
          );
        })}
      </Form>
    </Drawer>
  );
}
