import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import { field } from '../../../test/listFixtures';
import FieldInput from '../FieldInput';

const hosts = field('videoHosts', { type: 'json', create: true, update: true });

describe('a list of words (an inferior platform\'s video server addresses)', () => {
  test('shows the list as tags and answers a list with the typed word added', () => {
    const onChange = vi.fn();
    render(<FieldInput field={hosts} mode="form" testId="hosts" value={['10.1.2.3']} onChange={onChange} />);
    expect(screen.getByText('10.1.2.3')).toBeTruthy();
    const input = screen.getByRole('combobox');
    fireEvent.change(input, { target: { value: '10.9.9.0/24' } });
    fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
    expect(onChange).toHaveBeenLastCalledWith(['10.1.2.3', '10.9.9.0/24']);
  });

  test('a comma ends a word too, and blanks are dropped', () => {
    const onChange = vi.fn();
    render(<FieldInput field={hosts} mode="form" testId="hosts" value={[]} onChange={onChange} />);
    fireEvent.change(screen.getByRole('combobox'), { target: { value: 'a.example.cn, 10.0.0.1,' } });
    expect(onChange).toHaveBeenLastCalledWith(['a.example.cn', '10.0.0.1']);
  });
});
