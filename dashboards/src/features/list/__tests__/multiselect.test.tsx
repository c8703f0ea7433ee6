import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import { field } from '../../../test/listFixtures';
import FieldInput from '../FieldInput';
import { widgetOf } from '../model';

const apis = field('apis', { enum: ['vehicles', 'positions', 'alarms'], multiple: true, create: true, update: true });

describe('a comma list of enum values (an open platform app\'s API groups)', () => {
  test('is a multi-select; a single enum stays a select', () => {
    expect(widgetOf(apis)).toBe('multiselect');
    expect(widgetOf({ ...apis, multiple: false })).toBe('select');
  });

  test('shows the comma text as chosen options and answers a comma text', () => {
    const onChange = vi.fn();
    render(<FieldInput field={apis} mode="form" testId="apis" value="vehicles,positions" onChange={onChange}
      optionLabel={(v) => `label ${String(v)}`} />);
    expect(screen.getByText('label vehicles')).toBeTruthy();
    expect(screen.getByText('label positions')).toBeTruthy();
    fireEvent.mouseDown(screen.getByRole('combobox'));
    fireEvent.click(screen.getByText('label alarms'));
    expect(onChange).toHaveBeenLastCalledWith('vehicles,positions,alarms');
  });
});
