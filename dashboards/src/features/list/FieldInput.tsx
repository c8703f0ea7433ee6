import { DatePicker, Input, InputNumber, Select, Switch } from 'antd';
import { useEffect, useState } from 'react';
import { refOptions, type RefOption } from './api';
import { widgetOf } from './model';
import type { FieldMeta } from './types';

interface Props {
  field: FieldMeta;
  /** Filters allow a range of times and clearing a choice. */
  mode: 'form' | 'filter';
  placeholder?: string;
  testId: string;
  /** The label of an enum value (default: the value). */
  optionLabel?: (value: string | number) => string;
  // Injected by antd Form.Item:
  value?: unknown;
  onChange?: (value: unknown) => void;
}

/** The records of a referenced entity as options (id -> name). */
function useRefOptions(entity: string | null): RefOption[] {
  const [options, setOptions] = useState<RefOption[]>([]);
  useEffect(() => {
    if (!entity) return undefined;
    const controller = new AbortController();
    void refOptions(entity, controller.signal).then((found) => {
      if (!controller.signal.aborted) setOptions(found);
    });
    return () => controller.abort();
  }, [entity]);
  return options;
}

/** The widget of one declared field, for the filter bar and the create/edit drawer. */
export default function FieldInput({ field, mode, placeholder, testId, optionLabel, value, onChange }: Props) {
  const widget = widgetOf(field);
  const refs = useRefOptions(widget === 'ref' || widget === 'refs' ? field.ref : null);
  const common = { placeholder, 'data-testid': testId };
  switch (widget) {
    case 'ref':
    case 'select': {
      const options = widget === 'ref' ? refs : (field.enum ?? []).map((v) => ({ value: v, label: optionLabel ? optionLabel(v) : String(v) }));
      return (
        <Select
          {...common}
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          options={options}
          value={value as RefOption['value'] | undefined}
          onChange={(v) => onChange?.(v ?? null)}
          style={{ minWidth: 160 }}
        />
      );
    }
    case 'refs':
      // the server's value is a list of the referenced records' ids
      return (
        <Select
          {...common}
          mode="multiple"
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          options={refs}
          value={Array.isArray(value) ? (value as RefOption['value'][]) : []}
          onChange={(v: RefOption['value'][]) => onChange?.(v)}
          style={{ minWidth: 200 }}
        />
      );
    case 'tags':
      // the server's value is a list of strings, typed one by one (Enter or a comma ends one)
      return (
        <Select
          {...common}
          mode="tags"
          allowClear
          open={false}
          suffixIcon={null}
          tokenSeparators={[',', ' ', '，']}
          value={Array.isArray(value) ? (value as string[]) : []}
          onChange={(v: string[]) => onChange?.(v.map((item) => item.trim()).filter(Boolean))}
          style={{ minWidth: 200 }}
        />
      );
    case 'multiselect': {
      // the server's value is a comma list of the enum's values
      const chosen = typeof value === 'string' && value ? value.split(',') : [];
      return (
        <Select
          {...common}
          mode="multiple"
          allowClear
          options={(field.enum ?? []).map((v) => ({ value: String(v), label: optionLabel ? optionLabel(v) : String(v) }))}
          value={chosen}
          onChange={(v: string[]) => onChange?.(v.join(','))}
          style={{ minWidth: 200 }}
        />
      );
    }
    case 'number':
      return (
        <InputNumber
          {...common}
          min={field.minimum ?? undefined}
          max={field.maximum ?? undefined}
          precision={field.type === 'int' ? 0 : undefined}
          value={value as number | null | undefined}
          onChange={(v) => onChange?.(v)}
          style={{ width: '100%', minWidth: 120 }}
        />
      );
    case 'switch':
      return mode === 'filter' ? (
        <Select {...common} allowClear options={[{ value: true, label: '✓' }, { value: false, label: '✗' }]}
          value={value as boolean | undefined} onChange={(v) => onChange?.(v)} style={{ minWidth: 100 }} />
      ) : (
        <Switch data-testid={testId} checked={!!value} onChange={(v) => onChange?.(v)} />
      );
    case 'time':
      return mode === 'filter' ? (
        <DatePicker.RangePicker data-testid={testId} showTime value={value as never} onChange={(v) => onChange?.(v)} />
      ) : (
        <DatePicker data-testid={testId} showTime value={value as never} onChange={(v) => onChange?.(v)} />
      );
    default:
      if (field.secret && mode === 'form') {
        return (
          <Input.Password {...common} autoComplete="new-password" value={(value as string | undefined) ?? ''}
            onChange={(e) => onChange?.(e.target.value)} />
        );
      }
      return (
        <Input
          {...common}
          allowClear={mode === 'filter'}
          maxLength={mode === 'form' ? (field.maxLength ?? undefined) : undefined}
          value={(value as string | undefined) ?? ''}
          onChange={(e) => onChange?.(e.target.value)}
        />
      );
  }
}
