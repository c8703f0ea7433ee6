import { SearchOutlined, UndoOutlined } from '@ant-design/icons';
import { Button, Form, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import FieldInput from './FieldInput';
import KindInput from './KindInput';
import { enumLabel, fieldTitle, namespaceOf } from './model';
import type { FieldMeta, FilterKind } from './types';
import './list.css';

interface Props {
  namespace: string;
  fields: FieldMeta[];
  onSearch: (values: Record<string, unknown>) => void;
  /** Values the form opens with; reset returns to them. */
  initialValues?: Record<string, unknown>;
  /** Filters that read differently from their declared type (report days, the enterprise tree, ...). */
  kinds?: Record<string, FilterKind>;
}

/** One input per filterable field; search applies them from page 1, reset clears them. */
export default function FilterBar({ namespace, fields, onSearch, initialValues, kinds = {} }: Props) {
  const { t } = useTranslation(['list', namespaceOf(namespace)]);
  const [form] = Form.useForm<Record<string, unknown>>();
  if (fields.length === 0) return null;
  return (
    <Form form={form} layout="inline" className="fw-list-filters" onFinish={onSearch} initialValues={initialValues} data-testid="list-filters" style={{ rowGap: 12, marginBottom: 16 }}>
      {fields.map((field) => {
        const title = fieldTitle(t, namespace, field);
        const kind = kinds[field.name];
        return (
          <Form.Item key={field.name} name={field.name} label={title}>
            {kind ? <KindInput field={field} kind={kind} testId={`list-filter-${field.name}`} />
              : <FieldInput field={field} mode="filter" testId={`list-filter-${field.name}`}
                optionLabel={(v) => enumLabel(t, namespace, field, v)} />}
          </Form.Item>
        );
      })}
      <Form.Item>
        <Space>
          <Button type="primary" htmlType="submit" icon={<SearchOutlined />} data-testid="list-search">
            {t('list:search')}
          </Button>
          <Button
            icon={<UndoOutlined />}
            data-testid="list-reset"
            onClick={() => {
              form.resetFields();
              onSearch(initialValues ?? {});
            }}
          >
            {t('list:reset')}
          </Button>
        </Space>
      </Form.Item>
    </Form>
  );
}
