import { describe, expect, test } from 'vitest';
import { refusalOf, terminalMayStream } from '../startOutcome';

describe('what became of a stream start', () => {
  test('the terminal\u2019s general response: success plays, failure, message error and unsupported are refusals', () => {
    expect(refusalOf({ state: 'answered', result: 0 })).toBeNull();
    expect(refusalOf({ state: 'answered', result: 1 })).toBe('failed');
    expect(refusalOf({ state: 'answered', result: 2 })).toBe('messageError');
    expect(refusalOf({ state: 'answered', result: 3 })).toBe('unsupported');
  });

  test('no answer (timed out, or the send failed) is a refusal; a command on its way is not known yet', () => {
    expect(refusalOf({ state: 'timed_out', result: null })).toBe('unanswered');
    expect(refusalOf({ state: 'failed', result: null })).toBe('unanswered');
    expect(refusalOf({ state: 'sent', result: null })).toBeUndefined();
    expect(refusalOf(null)).toBeUndefined();
  });

  test('only a terminal that accepted but sent no media may still be streaming (it gets 9102)', () => {
    expect(terminalMayStream('noMedia')).toBe(true);
    expect(terminalMayStream('unsupported')).toBe(false);
  });
});
