import { describe, expect, it } from 'vitest';
import { securityNotice } from './securityNotice';

describe('security notice push (type 15)', () => {
  it('reads a session takeover with the plate and both addresses', () => {
    const notice = securityNotice({
      type: 15,
      data: {
        deviceId: 7, carId: 3, plateNumber: '京A12345', phone: '013800000007', event: 'session_replaced',
        message: 'x', peer: '10.0.0.9:5100', replacedPeer: '10.0.0.2:4000', time: '2026-11-24T08:00:00Z',
      },
    });
    expect(notice).toMatchObject({ event: 'session_replaced', vehicle: '京A12345', peer: '10.0.0.9:5100', replacedPeer: '10.0.0.2:4000' });
  });

  it('falls back to the phone without a vehicle, and to "other" for an unknown event', () => {
    const notice = securityNotice({ type: 15, data: { phone: '013800000008', event: 'future_event', message: 'm' } });
    expect(notice).toMatchObject({ event: 'other', vehicle: '013800000008', peer: '-', message: 'm' });
    const english = securityNotice({ type: 15, data: { phone: '013800000008', event: 'future_event', message: '终端', localMessage: 'terminal' } });
    expect(english?.message).toBe('terminal');
  });

  it('shows an unknown event in the user\'s language: the push\'s localMessage, as an HTTP error\'s', () => {
    const data = { phone: '013800000008', event: 'future_event', message: '新事件 (a new event)' };
    expect(securityNotice({ type: 15, data: { ...data, localMessage: 'a new event' } })?.message).toBe('a new event');
    expect(securityNotice({ type: 15, data })?.message).toBe('新事件 (a new event)'); // a push without one: as sent
  });

  it('ignores other push types and bodies without a phone', () => {
    expect(securityNotice({ type: 1, data: { phone: '1' } })).toBeNull();
    expect(securityNotice({ type: 15, data: { event: 'session_replaced' } })).toBeNull();
    expect(securityNotice({ type: 15, data: null })).toBeNull();
  });

  it('reads a re-registration waiting for approval with its request and device', () => {
    const notice = securityNotice({
      type: 15,
      data: { deviceId: 7, phone: '013800000007', event: 'reregistration_pending', requestId: 42, peer: '10.0.0.9:5100' },
    });
    expect(notice).toMatchObject({ event: 'reregistration_pending', deviceId: 7, requestId: 42 });
    expect(securityNotice({ type: 15, data: { phone: '1', event: 'imei_mismatch', requestId: 'x' } }))
      .toMatchObject({ event: 'imei_mismatch', requestId: null, deviceId: null });
  });
});
