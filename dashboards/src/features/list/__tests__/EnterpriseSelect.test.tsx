import { render, screen, waitFor } from '@testing-library/react';
import { describe, expect, test, vi } from 'vitest';
import '../../../i18n';
import EnterpriseSelect from '../EnterpriseSelect';

let answer: (value: unknown) => void = () => undefined;
vi.mock('../../org/api', () => ({
  fetchSubsidiaries: () => new Promise((resolve) => { answer = resolve; }),
}));

describe('the enterprise field of a record form', () => {
  test('shows that it is loading, not the bare id, until the tree names the enterprise', async () => {
    const { container } = render(<EnterpriseSelect testId="enterprise" value={7} />);
    expect(container.textContent).not.toContain('7');
    expect(container.querySelector('.ant-select-disabled')).not.toBeNull();
    answer({ code: 0, data: [{ id: 1, shortName: '示范物流', type: 1, state: 1, children: [
      { id: 7, shortName: '示范一分公司', type: 1, state: 1, children: [] }] }] });
    await waitFor(() => expect(screen.getByText('示范一分公司')).toBeTruthy());
    expect(container.querySelector('.ant-select-disabled')).toBeNull();
  });
});
