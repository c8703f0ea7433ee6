import { act, render, screen } from '@testing-library/react';
import { theme } from 'antd';
import { afterEach, describe, expect, it, vi } from 'vitest';
import '../../i18n';
import { SettingsProvider } from '../../layouts/settings/SettingsContext';
import AppProviders from '../AppProviders';
import { systemMotion } from '../../test/systemMotion';

/** antd's motion token under the console's providers (dialogs zooming, menus sliding: antd follows it). */
function Motion() {
  const { token } = theme.useToken();
  return <i>{token.motion ? 'motion' : 'still'}</i>;
}

const shown = () => render(<SettingsProvider><AppProviders><Motion /></AppProviders></SettingsProvider>);

afterEach(() => vi.unstubAllGlobals());

describe('motion follows the system setting (WCAG 2.3.3)', () => {
  it('is on when the user has not asked for less motion', () => {
    systemMotion(false);
    shown();
    expect(screen.getByText('motion')).toBeTruthy();
  });

  it('is off for a user who asked for less motion, and follows a change of the setting while open', () => {
    const change = systemMotion(true);
    shown();
    expect(screen.getByText('still')).toBeTruthy();
    act(() => change(false));
    expect(screen.getByText('motion')).toBeTruthy();
  });
});
