import { describe, expect, it } from 'vitest';
import { prefillFromSearch, registerLink } from '../registerPrefill';

describe('register a refused unknown terminal', () => {
  it('links to the device form with the phone, terminal id and protocol version it reported', () => {
    const link = registerLink({ phone: '13912345678', terminalId: 'TID 01', protocolVersion: '2019', attempts: 3 });
    expect(link).toBe('/list/device?register=13912345678&terminalId=TID+01&protocolVersion=2019');
    const values = prefillFromSearch(new URL(link, 'http://x').searchParams);
    expect(values).toEqual({ phone: '13912345678', deviceSn: 'TID 01', expectedTerminalId: 'TID 01', protocolVersion: '2019' });
  });

  it('fills only the phone when the terminal sent no terminal id (a 0x0102 alone)', () => {
    expect(prefillFromSearch(new URL(registerLink({ phone: '13912345678', terminalId: '', protocolVersion: '' }), 'http://x').searchParams))
      .toEqual({ phone: '13912345678' });
  });

  it('opens nothing for a URL without a phone of digits', () => {
    expect(prefillFromSearch(new URLSearchParams(''))).toBeUndefined();
    expect(prefillFromSearch(new URLSearchParams('register=000000000000x'))).toBeUndefined();
    expect(prefillFromSearch(new URLSearchParams('register=13912345678&protocolVersion=1999'))).toEqual({ phone: '13912345678' });
  });
});
