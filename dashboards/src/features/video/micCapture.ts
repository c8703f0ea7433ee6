/**
 * The microphone for a talk (console-spec §4, §8): getUserMedia (mono, echo cancellation), then an
 * AudioWorklet that hands float blocks to the main thread, or a ScriptProcessor where AudioWorklet is
 * missing. The worklet is a file of its own (public/talk-worklet.js: the CSP allows no data: or blob:
 * scripts, and Vite would inline a small module as data:). Rejects with the getUserMedia error (talkModel.micErrorOf names it for the user).
 */
import type { MicError } from './talkModel';
import { micErrorOf } from './talkModel';

export interface MicCapture {
  sampleRate: number;
  stop: () => void;
}

export class MicFailure extends Error {
  constructor(readonly reason: MicError) {
    super(`microphone: ${reason}`);
  }
}

export async function openMicrophone(onBlock: (block: Float32Array) => void, onEnded: () => void): Promise<MicCapture> {
  const context = {
    secure: window.isSecureContext,
    hasMediaDevices: typeof navigator.mediaDevices?.getUserMedia === 'function',
    inIframe: window.self !== window.top,
  };
  if (!context.secure || !context.hasMediaDevices || typeof AudioContext === 'undefined') {
    throw new MicFailure(micErrorOf(null, { ...context, hasMediaDevices: context.hasMediaDevices && typeof AudioContext !== 'undefined' }));
  }
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: false, autoGainControl: false }, video: false });
  } catch (error) {
    throw new MicFailure(micErrorOf(error, context));
  }
  const audio = new AudioContext();
  if (audio.state === 'suspended') await audio.resume().catch(() => undefined);
  const input = audio.createMediaStreamSource(stream);
  // Nothing is played back: the nodes end in a silent gain so the graph runs without an echo.
  const sink = audio.createGain();
  sink.gain.value = 0;
  sink.connect(audio.destination);
  let node: AudioNode | null = null;
  if (audio.audioWorklet) {
    try {
      await audio.audioWorklet.addModule(`${import.meta.env.BASE_URL}talk-worklet.js`);
      const worklet = new AudioWorkletNode(audio, 'fleet-talk-capture', { numberOfInputs: 1, numberOfOutputs: 1, channelCount: 1 });
      worklet.port.onmessage = (event: MessageEvent<Float32Array>) => onBlock(event.data);
      node = worklet;
    } catch (error) {
      console.warn('[talk] AudioWorklet unavailable, using a ScriptProcessor', error);
    }
  }
  if (node === null) {
    const processor = audio.createScriptProcessor(4096, 1, 1);
    processor.onaudioprocess = (event) => onBlock(new Float32Array(event.inputBuffer.getChannelData(0)));
    node = processor;
  }
  input.connect(node);
  node.connect(sink);
  const track = stream.getAudioTracks()[0];
  const ended = () => onEnded();
  track?.addEventListener('ended', ended);
  return {
    sampleRate: audio.sampleRate,
    stop: () => {
      track?.removeEventListener('ended', ended);
      for (const t of stream.getTracks()) t.stop();
      input.disconnect();
      node.disconnect();
      void audio.close().catch(() => undefined);
    },
  };
}
