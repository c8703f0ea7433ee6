/**
 * Runs one talk session by the talk model (talkModel.ts): the microphone, 9101 with data type 2 and
 * stream type 1, the socket 5 s later (each binary message one 1078 packet, talkFrame.ts), the stream
 * check once a second (15 attempts), the terminal's audio through the player, the heartbeat every 5 s,
 * and the stop (socket, 9102 command 4, player). Only one talk at a time in the console: a second one
 * is refused with "语音对讲在进行中，只支持一对一语音对讲！".
 */
import { fetchStreamInfo, startStream, stopStream, type StreamStart } from './api';
import { DATA_TYPE, STREAM_TYPE, TALK_STREAM_CHECK_MS } from './constants';
import { streamHeartbeat } from './heartbeat';
import { MicFailure, openMicrophone, type MicCapture } from './micCapture';
import { TalkFramer } from './talkFrame';
import { initialTalkState, talkTransition, type TalkEffect, type TalkEvent, type TalkMessage, type TalkState } from './talkModel';

export interface TalkTarget {
  carId: number | null;
  deviceId: number;
  deviceSn: string;
  /** The terminal's SIM (phone), written in each packet's header. */
  phone: string;
  plateNumber: string;
  /** The talk channel; absent: the vehicle's own (see channelTree.talkChannelOf). */
  channelId?: number;
}

export interface TalkListener {
  state: (state: TalkState) => void;
  message: (message: TalkMessage) => void;
  /** The terminal's audio to play (null: stop playing). */
  player: (stream: StreamStart | null) => void;
}

/** The one talk slot of the console: the session holding it (at most one). */
const talkSlot = new Set<TalkSessionController>();
export const talkInProgress = () => talkSlot.size > 0;

export class TalkSessionController {
  state: TalkState = initialTalkState;
  private mic: MicCapture | null = null;
  private framer: TalkFramer | null = null;
  private socket: WebSocket | null = null;
  private socketTimer: ReturnType<typeof setTimeout> | null = null;
  private checkTimer: ReturnType<typeof setInterval> | null = null;
  private releaseHeartbeat: (() => void) | null = null;
  private startAnswer: StreamStart | null = null;
  framesSent = 0;

  constructor(private readonly target: TalkTarget, private readonly channelId: number, private readonly listener: TalkListener) {}

  /** False when another talk holds the slot (the caller shows the one-talk message). */
  start(): boolean {
    if (talkSlot.size > 0 && !talkSlot.has(this)) {
      this.state = { ...initialTalkState, status: 'failed', message: 'busy' };
      this.listener.message('busy');
      this.listener.state(this.state);
      return false;
    }
    talkSlot.add(this);
    this.dispatch({ type: 'start' });
    return true;
  }

  /** Ends the talk; the slot is free at once (the stop command finishes on its own). */
  stop(): void {
    this.dispatch({ type: 'stop' });
    talkSlot.delete(this);
  }

  private get commandTarget() {
    return this.target.carId !== null ? { carId: this.target.carId, deviceId: this.target.deviceId } : { deviceId: this.target.deviceId };
  }

  private dispatch(event: TalkEvent): void {
    const { state, effects } = talkTransition(this.state, event);
    if (state === this.state && effects.length === 0) return;
    this.state = state;
    for (const effect of effects) this.run(effect);
    if (state.status === 'stopping' && !effects.some((e) => e.type === 'sendStop')) this.dispatch({ type: 'stopped' });
    if (state.status === 'ended' || state.status === 'failed') this.release();
    this.listener.state(state);
  }

  private release(): void {
    talkSlot.delete(this);
    this.releaseHeartbeat?.();
    this.releaseHeartbeat = null;
  }

  private run(effect: TalkEffect): void {
    switch (effect.type) {
      case 'openMic':
        void this.openMic();
        break;
      case 'closeMic':
        this.mic?.stop();
        this.mic = null;
        break;
      case 'sendStart':
        void this.sendStart();
        break;
      case 'scheduleSocket':
        this.socketTimer = setTimeout(() => {
          this.socketTimer = null;
          const url = this.startAnswer?.talkUrl;
          if (url) this.run({ type: 'openSocket', url });
        }, effect.delayMs);
        break;
      case 'openSocket':
        this.openSocket(effect.url);
        break;
      case 'closeSocket':
        if (this.socketTimer !== null) clearTimeout(this.socketTimer);
        this.socketTimer = null;
        if (this.socket) {
          const socket = this.socket;
          this.socket = null;
          socket.onclose = null;
          socket.onerror = null;
          socket.close();
        }
        break;
      case 'startStreamCheck':
        this.checkTimer = setInterval(() => void this.checkStream(), TALK_STREAM_CHECK_MS);
        break;
      case 'stopStreamCheck':
        if (this.checkTimer !== null) clearInterval(this.checkTimer);
        this.checkTimer = null;
        break;
      case 'startPlayer':
        this.listener.player(this.startAnswer);
        break;
      case 'stopPlayer':
        this.listener.player(null);
        break;
      case 'sendStop':
        void stopStream(this.commandTarget, effect.streamId, this.channelId, 'talk').finally(() => this.dispatch({ type: 'stopped' }));
        break;
      case 'notify':
        this.listener.message(effect.message);
        break;
    }
  }

  private async openMic(): Promise<void> {
    try {
      const mic = await openMicrophone((block) => this.onAudio(block), () => this.dispatch({ type: 'micEnded' }));
      if (this.state.status !== 'microphone') {
        mic.stop();
        return;
      }
      this.mic = mic;
      this.framer = new TalkFramer(mic.sampleRate, this.target.phone, this.channelId);
      this.dispatch({ type: 'micOpened' });
    } catch (error) {
      if (!(error instanceof MicFailure)) console.warn('[talk] microphone', error);
      this.dispatch({ type: 'micFailed', error: error instanceof MicFailure ? error.reason : 'unknown' });
    }
  }

  private async sendStart(): Promise<void> {
    const reply = await startStream(this.commandTarget, { channelId: this.channelId, dataType: DATA_TYPE.talk, streamType: STREAM_TYPE.sub });
    if (reply.code !== 0 || !reply.data) {
      this.dispatch({ type: 'refused' });
      return;
    }
    this.startAnswer = reply.data;
    this.releaseHeartbeat = streamHeartbeat.hold(reply.data.streamId);
    this.dispatch({ type: 'accepted', stream: { streamId: reply.data.streamId, talkUrl: reply.data.talkUrl ?? null, flvUrl: reply.data.wsUrl || reply.data.flvUrl } });
  }

  private openSocket(url: string): void {
    let socket: WebSocket;
    try {
      socket = new WebSocket(url);
    } catch {
      this.dispatch({ type: 'socketError' });
      return;
    }
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => this.dispatch({ type: 'socketOpen' });
    socket.onerror = () => this.dispatch({ type: 'socketError' });
    socket.onclose = () => this.dispatch({ type: 'socketClosed' });
    this.socket = socket;
  }

  private async checkStream(): Promise<void> {
    const info = await fetchStreamInfo(this.target.deviceSn, this.channelId, 'talk');
    this.dispatch({ type: 'streamCheck', up: Boolean(info?.updateTime) });
  }

  private onAudio(block: Float32Array): void {
    const socket = this.socket;
    if (!this.framer) return;
    const packets = this.framer.push(block);
    // Frames before the socket is open are dropped: the terminal hears from the moment it can.
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    for (const packet of packets) {
      socket.send(packet);
      this.framesSent += 1;
    }
  }
}
