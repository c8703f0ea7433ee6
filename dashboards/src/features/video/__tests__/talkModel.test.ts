import { describe, expect, it } from 'vitest';
import { holdsTalk, initialTalkState, micErrorOf, talkTransition, type TalkEffect, type TalkEvent, type TalkState } from '../talkModel';

const STREAM = { streamId: '7-1-talk', talkUrl: 'ws://h:7612/talk/7-1-talk?token=t', flvUrl: 'http://h:7612/live/7-1-talk.flv?token=t' };

function run(events: TalkEvent[], state: TalkState = initialTalkState) {
  const effects: TalkEffect[] = [];
  for (const event of events) {
    const next = talkTransition(state, event);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

const upToConnecting: TalkEvent[] = [{ type: 'start' }, { type: 'micOpened' }, { type: 'accepted', stream: STREAM }];

describe('talk session', () => {
  it('opens the microphone, then sends the start command, then the socket 5 s later and plays the terminal', () => {
    const { state, effects } = run(upToConnecting);
    expect(state.status).toBe('connecting');
    expect(effects).toEqual([
      { type: 'openMic' },
      { type: 'sendStart' },
      { type: 'scheduleSocket', delayMs: 5000 },
      { type: 'startStreamCheck' },
      { type: 'startPlayer', url: STREAM.flvUrl },
    ]);
  });

  it('is talking once the socket opens, and says "please start speaking" once', () => {
    const { state, effects } = run([...upToConnecting, { type: 'socketOpen' }, { type: 'streamCheck', up: true }]);
    expect(state.status).toBe('talking');
    expect(effects.filter((e) => e.type === 'notify')).toEqual([{ type: 'notify', message: 'speak' }]);
  });

  it('is talking once the terminal reports its stream, before the socket', () => {
    const { state } = run([...upToConnecting, { type: 'streamCheck', up: false }, { type: 'streamCheck', up: true }]);
    expect(state.status).toBe('talking');
    expect(state.socketOpen).toBe(false);
  });

  it('stops through socket close, the stop command, the player, then ends with "talk ended"', () => {
    const talking = run([...upToConnecting, { type: 'socketOpen' }]).state;
    const stopping = run([{ type: 'stop' }], talking);
    expect(stopping.state.status).toBe('stopping');
    expect(stopping.effects).toEqual([
      { type: 'closeSocket' },
      { type: 'stopStreamCheck' },
      { type: 'sendStop', streamId: STREAM.streamId },
      { type: 'stopPlayer' },
      { type: 'closeMic' },
    ]);
    const ended = run([{ type: 'stopped' }], stopping.state);
    expect(ended.state.status).toBe('ended');
    expect(ended.effects).toEqual([{ type: 'notify', message: 'ended' }]);
  });

  it('gives up after 15 stream checks with the terminal answer timeout, and cleans up', () => {
    const checks: TalkEvent[] = Array.from({ length: 14 }, () => ({ type: 'streamCheck', up: false }));
    const fourteen = run([...upToConnecting, ...checks]);
    expect(fourteen.state.status).toBe('connecting');
    const { state, effects } = run([{ type: 'streamCheck', up: false }], fourteen.state);
    expect(state.status).toBe('failed');
    expect(state.message).toBe('answerTimeout');
    expect(effects).toContainEqual({ type: 'sendStop', streamId: STREAM.streamId });
    expect(effects.at(-1)).toEqual({ type: 'notify', message: 'answerTimeout' });
  });

  it('says the talk server could not be reached on a socket error or a close before talking', () => {
    expect(run([...upToConnecting, { type: 'socketError' }]).state.message).toBe('serverConnect');
    expect(run([...upToConnecting, { type: 'socketClosed' }]).state.message).toBe('serverConnect');
  });

  it('says there is no talk server when the start answer has no talk URL, and stops the stream', () => {
    const { state, effects } = run([{ type: 'start' }, { type: 'micOpened' }, { type: 'accepted', stream: { ...STREAM, talkUrl: null } }]);
    expect(state.message).toBe('noTalkServer');
    expect(effects).toContainEqual({ type: 'sendStop', streamId: STREAM.streamId });
  });

  it('reports a microphone error and sends no command', () => {
    const { state, effects } = run([{ type: 'start' }, { type: 'micFailed', error: 'denied' }]);
    expect(state.status).toBe('failed');
    expect(state.message).toBe('mic.denied');
    expect(effects).not.toContainEqual({ type: 'sendStart' });
    expect(effects).not.toContainEqual(expect.objectContaining({ type: 'sendStop' }));
  });

  it('leaves a refusal to the failure handler (no second message) and closes the microphone', () => {
    const { state, effects } = run([{ type: 'start' }, { type: 'micOpened' }, { type: 'refused' }]);
    expect(state.status).toBe('failed');
    expect(effects).toContainEqual({ type: 'closeMic' });
    expect(effects.filter((e) => e.type === 'notify')).toEqual([]);
  });

  it('fails with the start error when the player cannot start', () => {
    expect(run([...upToConnecting, { type: 'playerFailed' }]).state.message).toBe('startError');
  });

  it('ignores a second start while a talk holds the slot', () => {
    const talking = run([...upToConnecting, { type: 'socketOpen' }]).state;
    expect(run([{ type: 'start' }], talking).effects).toEqual([]);
    expect(holdsTalk(talking.status)).toBe(true);
    expect(holdsTalk('ended')).toBe(false);
    expect(holdsTalk('failed')).toBe(false);
  });
});

describe('microphone errors', () => {
  const page = { secure: true, hasMediaDevices: true, inIframe: false };
  it('names each of the spec`s microphone errors', () => {
    expect(micErrorOf(null, { ...page, secure: false })).toBe('insecure');
    expect(micErrorOf(null, { ...page, hasMediaDevices: false })).toBe('unsupported');
    expect(micErrorOf({ name: 'NotAllowedError' }, page)).toBe('denied');
    expect(micErrorOf({ name: 'NotAllowedError' }, { ...page, inIframe: true })).toBe('iframePolicy');
    expect(micErrorOf({ name: 'NotFoundError' }, page)).toBe('notFound');
    expect(micErrorOf({ name: 'Weird' }, page)).toBe('unknown');
  });
});
