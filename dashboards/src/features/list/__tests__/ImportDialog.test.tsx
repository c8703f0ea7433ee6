import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App } from 'antd';
import { describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import ImportDialog from '../ImportDialog';
import type { Importer } from '../importJob';

/** An import that ends at once with one created row and one refused (as the fence binding import does). */
const doneAtOnce = (): Importer => ({
  run: vi.fn(async (_file, dispatch) => {
    dispatch({ type: 'upload' });
    dispatch({ type: 'started', jobId: '', total: 2 });
    dispatch({ type: 'status', status: { state: 'done', total: 2, processed: 2, created: 1, failed: 1, errors: [{ row: 3, message: '车辆不存在', localMessage: 'no such plate' }] } });
  }),
  template: vi.fn(async () => null),
});

function upload(container: HTMLElement) {
  const input = container.ownerDocument.querySelector('[data-testid=binding-import-dialog] input[type=file]') as HTMLInputElement;
  fireEvent.change(input, { target: { files: [new File(['围栏名称,车牌号\n'], 'b.csv', { type: 'text/csv' })] } });
}

describe('the import dialog with an importer of its own', () => {
  test('runs that importer and its template, shows the refused rows, and reports the finished import once', async () => {
    const importer = doneAtOnce();
    const first = vi.fn();
    const { container, rerender } = render(<App><ImportDialog entity="fenceBinding" importer={importer} title="Bindings"
      testId="binding-import-dialog" open onClose={() => undefined} onImported={first} /></App>);
    expect(screen.getByText('Bindings')).toBeTruthy();
    fireEvent.click(screen.getByTestId('import-template'));
    await waitFor(() => expect(importer.template).toHaveBeenCalledTimes(1));
    await act(async () => upload(container));
    // the reason in the caller's language (localMessage), not the Chinese message beside it
    await waitFor(() => expect(screen.getByTestId('import-errors').textContent).toContain('no such plate'));
    expect(screen.getByTestId('import-errors').textContent).not.toContain('车辆不存在');
    expect(importer.run).toHaveBeenCalledTimes(1);
    expect(first).toHaveBeenCalledTimes(1);
    // A parent whose reload hands a new callback on every render is not told again for the same import.
    const second = vi.fn();
    rerender(<App><ImportDialog entity="fenceBinding" importer={importer} title="Bindings"
      testId="binding-import-dialog" open onClose={() => undefined} onImported={second} /></App>);
    expect(second).not.toHaveBeenCalled();
  });
});
