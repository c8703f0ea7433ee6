/**
 * The talk session (console-spec §4 "talk session", §8), as a pure reducer the talk controller
 * (talkSession.ts) drives and vitest checks:
 *
 * idle -> microphone (asking for it) -> commanding (9101, data type 2) -> connecting (the socket is
 * opened 5 s after the start command; the stream is checked meanwhile) -> talking (the socket opened,
 * or the terminal reported its stream) -> stopping (socket closed, 9102 command 4, player stopped)
 * -> ended. Any failure ends in `failed` with the spec's message, after the same clean-up.
 * The stream check gives up after 15 attempts ("开启对讲失败，终端应答超时！").
 */
import { TALK_SOCKET_DELAY_MS, TALK_STREAM_CHECK_ATTEMPTS } from './constants';

export type TalkStatus = 'idle' | 'microphone' | 'commanding' | 'connecting' | 'talking' | 'stopping' | 'ended' | 'failed';

export type MicError = 'unsupported' | 'denied' | 'insecure' | 'notFound' | 'iframePolicy' | 'unknown';

/** Keys of the `video:talk.*` strings (console-spec §8). */
export type TalkMessage =
  | 'speak' // 请您开始说话……
  | 'ended' // 语音对讲已结束!
  | 'answerTimeout' // 开启对讲失败，终端应答超时！
  | 'serverConnect' // 连接语音对讲服务器失败，请联系系统管理员！
  | 'noTalkServer' // 无可用语音对讲服务器，请联系系统管理员配置！
  | 'startError' // 开启语音对讲出错，请稍后重试！
  | 'notRecording' // 未打开录音
  | 'refused' // the server's refusal, already shown by the client's failure handler
  | 'busy' // 语音对讲在进行中，只支持一对一语音对讲！ (another talk holds the console's one slot)
  | `mic.${MicError}`;

export interface TalkStream {
  streamId: string;
  talkUrl: string | null;
  flvUrl: string | null;
}

export interface TalkState {
  status: TalkStatus;
  stream: TalkStream | null;
  checks: number;
  socketOpen: boolean;
  message: TalkMessage | null;
}

export type TalkEvent =
  | { type: 'start' }
  | { type: 'micOpened' }
  | { type: 'micFailed'; error: MicError }
  | { type: 'micEnded' }
  | { type: 'accepted'; stream: TalkStream }
  | { type: 'refused' }
  | { type: 'socketOpen' }
  | { type: 'socketError' }
  | { type: 'socketClosed' }
  | { type: 'streamCheck'; up: boolean }
  | { type: 'playerFailed' }
  | { type: 'stop' }
  | { type: 'stopped' };

export type TalkEffect =
  | { type: 'openMic' }
  | { type: 'closeMic' }
  | { type: 'sendStart' }
  | { type: 'scheduleSocket'; delayMs: number }
  | { type: 'openSocket'; url: string }
  | { type: 'closeSocket' }
  | { type: 'startStreamCheck' }
  | { type: 'stopStreamCheck' }
  | { type: 'startPlayer'; url: string }
  | { type: 'stopPlayer' }
  | { type: 'sendStop'; streamId: string }
  | { type: 'notify'; message: TalkMessage };

export const initialTalkState: TalkState = { status: 'idle', stream: null, checks: 0, socketOpen: false, message: null };

const LIVE: readonly TalkStatus[] = ['microphone', 'commanding', 'connecting', 'talking'];

/** Everything opened so far, closed in the spec's order: socket, stop command, player (and the microphone). */
function cleanUp(state: TalkState): TalkEffect[] {
  const effects: TalkEffect[] = [{ type: 'closeSocket' }, { type: 'stopStreamCheck' }];
  if (state.stream) effects.push({ type: 'sendStop', streamId: state.stream.streamId });
  effects.push({ type: 'stopPlayer' }, { type: 'closeMic' });
  return effects;
}

function fail(state: TalkState, message: TalkMessage): { state: TalkState; effects: TalkEffect[] } {
  const effects = cleanUp(state);
  if (message !== 'refused') effects.push({ type: 'notify', message });
  return { state: { ...state, status: 'failed', socketOpen: false, message }, effects };
}

function talking(state: TalkState, socketOpen: boolean): { state: TalkState; effects: TalkEffect[] } {
  const effects: TalkEffect[] = state.status === 'talking' ? [] : [{ type: 'notify', message: 'speak' }];
  if (state.status !== 'talking') effects.push({ type: 'stopStreamCheck' });
  return { state: { ...state, status: 'talking', socketOpen: socketOpen || state.socketOpen, message: 'speak' }, effects };
}

export function talkTransition(state: TalkState, event: TalkEvent): { state: TalkState; effects: TalkEffect[] } {
  const none = { state, effects: [] as TalkEffect[] };
  switch (event.type) {
    case 'start':
      if (LIVE.includes(state.status) || state.status === 'stopping') return none;
      return { state: { ...initialTalkState, status: 'microphone' }, effects: [{ type: 'openMic' }] };
    case 'micOpened':
      if (state.status !== 'microphone') return none;
      return { state: { ...state, status: 'commanding' }, effects: [{ type: 'sendStart' }] };
    case 'micFailed':
      return state.status === 'microphone' ? fail(state, `mic.${event.error}`) : none;
    case 'micEnded':
      return LIVE.includes(state.status) ? fail(state, 'notRecording') : none;
    case 'refused':
      return state.status === 'commanding' ? fail(state, 'refused') : none;
    case 'accepted': {
      if (state.status !== 'commanding') return none;
      const next = { ...state, stream: event.stream };
      if (!event.stream.talkUrl) return fail(next, 'noTalkServer');
      const effects: TalkEffect[] = [{ type: 'scheduleSocket', delayMs: TALK_SOCKET_DELAY_MS }, { type: 'startStreamCheck' }];
      if (event.stream.flvUrl) effects.push({ type: 'startPlayer', url: event.stream.flvUrl });
      return { state: { ...next, status: 'connecting' }, effects };
    }
    case 'socketOpen':
      return state.status === 'connecting' || state.status === 'talking' ? talking(state, true) : none;
    case 'socketError':
    case 'socketClosed':
      if (state.status === 'connecting') return fail(state, 'serverConnect');
      if (state.status === 'talking') {
        // A socket lost while talking ends the talk (the terminal has nobody to hear).
        return state.socketOpen ? fail(state, 'serverConnect') : none;
      }
      return none;
    case 'streamCheck': {
      if (state.status !== 'connecting') return none;
      if (event.up) return talking(state, false);
      const checks = state.checks + 1;
      if (checks >= TALK_STREAM_CHECK_ATTEMPTS) return fail({ ...state, checks }, 'answerTimeout');
      return { state: { ...state, checks }, effects: [] };
    }
    case 'playerFailed':
      return LIVE.includes(state.status) ? fail(state, 'startError') : none;
    case 'stop':
      if (!LIVE.includes(state.status)) return none;
      return { state: { ...state, status: 'stopping' }, effects: cleanUp(state) };
    case 'stopped':
      if (state.status !== 'stopping') return none;
      return { state: { ...state, status: 'ended', socketOpen: false, message: 'ended' }, effects: [{ type: 'notify', message: 'ended' }] };
  }
}

/** Whether a talk in this state holds the one talk slot (only one talk at a time). */
export const holdsTalk = (status: TalkStatus) => LIVE.includes(status) || status === 'stopping';

/** A getUserMedia failure as the spec's microphone error (console-spec §8). */
export function micErrorOf(error: unknown, context: { secure: boolean; hasMediaDevices: boolean; inIframe: boolean }): MicError {
  if (!context.secure) return 'insecure';
  if (!context.hasMediaDevices) return 'unsupported';
  const name = (error as { name?: string } | null)?.name ?? '';
  if (name === 'NotFoundError' || name === 'DevicesNotFoundError' || name === 'OverconstrainedError') return 'notFound';
  if (name === 'NotAllowedError' || name === 'PermissionDeniedError' || name === 'SecurityError') {
    return context.inIframe ? 'iframePolicy' : 'denied';
  }
  if (name === 'NotSupportedError' || name === 'TypeError') return 'unsupported';
  return 'unknown';
}
