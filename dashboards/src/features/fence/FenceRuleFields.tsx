/**
 * The rule fields of a fence (platform-spec §9: type, checked by platform or terminal, attributes, time
 * window, speed limits, stay limit), shared by the fence form and the route wizards' step 3.
 */
import { Checkbox, DatePicker, Form, InputNumber, Radio, Select, TimePicker } from 'antd';
import { useTranslation } from 'react-i18next';
import { ATTRIBUTES, BUSINESS_TYPES, FENCE_TYPES, STAY_FENCE_TYPE, type TimeWindow } from './fenceForm';

/** `routeOnly`: the route wizards, whose fence type (route) and business type (the wizard's) are fixed. */
export function FenceRuleFields({ routeOnly }: { routeOnly?: boolean }) {
  const { t } = useTranslation('fence');
  const form = Form.useFormInstance();
  const window = Form.useWatch<TimeWindow | undefined>('window', form);
  const fenceType = Form.useWatch<number | undefined>('fenceType', form);
  const field = (name: string) => t(`fence.fields.${name}`);
  return (
    <>
      <Form.Item name="fenceType" label={field('fenceType')} rules={[{ required: true }]}>
        <Select data-testid="fence-field-fenceType" disabled={routeOnly}
          options={FENCE_TYPES.map((v) => ({ value: v, label: t(`fence.enums.fenceType.${v}`) }))} />
      </Form.Item>
      <Form.Item name="businessType" label={field('businessType')} rules={[{ required: true }]}>
        <Radio.Group data-testid="fence-field-businessType" disabled={routeOnly}
          options={BUSINESS_TYPES.map((v) => ({ value: v, label: <span data-testid={`fence-business-${v}`}>{t(`fence.enums.businessType.${v}`)}</span> }))} />
      </Form.Item>
      <Form.Item name="attributes" label={field('attributes')}>
        <Checkbox.Group data-testid="fence-field-attributes"
          options={ATTRIBUTES.map((v) => ({ value: v, label: <span data-testid={`fence-attribute-${v}`}>{t(`fence.enums.attributes.${v}`)}</span> }))} />
      </Form.Item>
      <Form.Item name="window" label={field('window')}>
        <Radio.Group data-testid="fence-field-window"
          options={(['always', 'absolute', 'daily'] as const).map((v) => ({ value: v, label: t(`fence.window.${v}`) }))} />
      </Form.Item>
      {window === 'absolute' && (
        <Form.Item name="absolute" label={`${field('startTime')} ~ ${field('endTime')}`} rules={[{ required: true }]}>
          <DatePicker.RangePicker showTime data-testid="fence-field-absolute" />
        </Form.Item>
      )}
      {window === 'daily' && (
        <Form.Item name="daily" label={`${field('dailyStart')} ~ ${field('dailyEnd')}`} rules={[{ required: true }]}>
          <TimePicker.RangePicker order={false} data-testid="fence-field-daily" />
        </Form.Item>
      )}
      {!routeOnly && (
        <>
          <Form.Item name="speedLimit" label={field('speedLimit')}>
            <InputNumber min={1} max={250} data-testid="fence-field-speedLimit" />
          </Form.Item>
          <Form.Item name="overspeedDuration" label={field('overspeedDuration')}>
            <InputNumber min={0} max={3600} data-testid="fence-field-overspeedDuration" />
          </Form.Item>
        </>
      )}
      <Form.Item name="nightSpeedLimit" label={field('nightSpeedLimit')}>
        <InputNumber min={1} max={250} data-testid="fence-field-nightSpeedLimit" />
      </Form.Item>
      {fenceType === STAY_FENCE_TYPE && (
        <Form.Item name="stayLimit" label={field('stayLimit')} rules={[{ required: true }]}>
          <InputNumber min={1} data-testid="fence-field-stayLimit" />
        </Form.Item>
      )}
    </>
  );
}
