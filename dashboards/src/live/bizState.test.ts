import { describe, expect, it } from 'vitest';
import { isOnlineBizState, normaliseBizState, stateColour } from './bizState';

describe('business state colours (platform-spec §4)', () => {
  it.each([
    [0, '#8c8c8c'],
    [1, '#52c41a'],
    [2, '#1677ff'],
    [3, '#f5222d'],
    [4, '#faad14'],
    [5, '#1677ff'],
  ])('state %i is %s (0 gray, 1 green, 2 blue, 3 red, 4 yellow, 5 blue)', (state, colour) => {
    expect(stateColour(state)).toBe(colour);
  });

  it('shows an unknown state as no signal (yellow)', () => {
    expect(stateColour(undefined)).toBe('#faad14');
    expect(stateColour(99)).toBe('#faad14');
    expect(normaliseBizState('x')).toBe(4);
    expect(normaliseBizState(null)).toBe(4);
  });

  it('counts states 1 to 3 as online', () => {
    expect([0, 1, 2, 3, 4].map(isOnlineBizState)).toEqual([false, true, true, true, false]);
  });
});
