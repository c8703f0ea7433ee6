import { describe, expect, it } from 'vitest';
import { commandNotice, msgIdHex, noticeLevel } from '../commandPush';

const result = (data: Record<string, unknown>) => commandNotice({ type: 11, data: { commandId: 7, deviceId: 3, plateNumber: '京A00001', msgId: 0x8300, time: 1700000000000, ...data } });

describe('command pushes 11 and 12', () => {
  it('maps result 0..3 to success, failure, message error, unsupported', () => {
    expect([0, 1, 2, 3].map((r) => result({ state: 'answered', result: r })?.outcome)).toEqual(['success', 'failure', 'messageError', 'unsupported']);
    expect(result({ state: 'answered', result: 0 })).toMatchObject({ vehicle: '京A00001', msgId: '8300', commandId: 7 });
  });

  it('reads a result push without a result as a timeout', () => {
    expect(result({ state: 'timed_out', result: null })?.outcome).toBe('timedOut');
  });

  it('maps send errors: 1 offline, 2 message error, 3 unsupported', () => {
    const error = (reason: number) => commandNotice({ type: 12, data: { commandId: 8, deviceId: 3, msgId: '8801', reason, message: '终端不在线 (offline)' } });
    expect([1, 2, 3].map((r) => error(r)?.outcome)).toEqual(['offline', 'messageError', 'unsupported']);
    expect(error(1)).toMatchObject({ vehicle: '3', msgId: '8801', message: '终端不在线 (offline)' });
  });

  it('shows the text in the user language (localMessage) before the Chinese message', () => {
    const push = { type: 12, data: { commandId: 8, deviceId: 3, reason: 1, message: '终端不在线', localMessage: 'the terminal is offline' } };
    expect(commandNotice(push)?.message).toBe('the terminal is offline');
    expect(commandNotice({ ...push, data: { ...push.data, localMessage: undefined } })?.message).toBe('终端不在线');
  });

  it('ignores other pushes', () => {
    expect(commandNotice({ type: 9, data: { objectKey: '/x' } })).toBeNull();
    expect(commandNotice({ type: 11, data: null })).toBeNull();
  });

  it('names message ids as four hex digits and grades outcomes', () => {
    expect(msgIdHex(33027)).toBe('8103');
    expect(msgIdHex('0x8801')).toBe('8801');
    expect(noticeLevel('success')).toBe('success');
    expect(noticeLevel('timedOut')).toBe('warning');
    expect(noticeLevel('offline')).toBe('error');
  });
});
