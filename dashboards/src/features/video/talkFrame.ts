/**
 * The talk socket's frames (console-spec §7, protocols/jt1078/talk.py): the microphone resampled to
 * 8 kHz 16-bit mono, cut into 320-sample frames, each sent as ONE JT/T 1078 packet (2016 layout):
 *
 * | bytes | field |
 * |---|---|
 * | 0-3 | magic 30 31 63 64 |
 * | 4 | V=2, P=0, X=0, CC=1: 0x81 |
 * | 5 | M=1, PT=16 (S16BE mono): 0x90 |
 * | 6-7 | serial, +1 a frame, 65535 is followed by 0 |
 * | 8-13 | SIM, 12 BCD digits |
 * | 14 | logical channel |
 * | 15 | data type 3 (audio) << 4 \| sub-package 0 (atomic): 0x30 |
 * | 16-23 | timestamp, ms (big-endian) |
 * | 24-25 | body length 0x0280 |
 * | 26- | 320 samples, signed 16-bit big-endian |
 *
 * Pure: no audio API here (micCapture.ts feeds it), so every byte is unit-tested.
 */
import { TALK_FRAME_SAMPLES, TALK_SAMPLE_RATE_HZ } from './constants';

export const TALK_MAGIC = [0x30, 0x31, 0x63, 0x64] as const;
export const PT_S16BE_MONO = 16;
export const TALK_HEADER_BYTES = 26;
export const TALK_BODY_BYTES = TALK_FRAME_SAMPLES * 2;
export const TALK_PACKET_BYTES = TALK_HEADER_BYTES + TALK_BODY_BYTES;

/** Twelve BCD digits of a SIM / phone: digits only, left-padded with zeros; longer: its last 12. */
export function simDigits(sim: string): string {
  const digits = sim.replace(/\D/g, '');
  return digits.length > 12 ? digits.slice(-12) : digits.padStart(12, '0');
}

/** One packet of `samples` (Int16, normally 320) with serial `seq` (taken modulo 65536). */
export function encodeTalkPacket(samples: Int16Array, seq: number, timestampMs: number, sim: string, channel: number): Uint8Array {
  const out = new Uint8Array(TALK_HEADER_BYTES + samples.length * 2);
  const view = new DataView(out.buffer);
  out.set(TALK_MAGIC, 0);
  out[4] = 0x81;
  out[5] = 0x80 | PT_S16BE_MONO;
  view.setUint16(6, seq & 0xffff);
  const digits = simDigits(sim);
  for (let i = 0; i < 6; i += 1) out[8 + i] = (Number(digits[2 * i]) << 4) | Number(digits[2 * i + 1]);
  out[14] = channel & 0xff;
  out[15] = 0x30;
  view.setBigUint64(16, BigInt(Math.max(0, Math.floor(timestampMs))));
  view.setUint16(24, samples.length * 2);
  for (let i = 0; i < samples.length; i += 1) view.setInt16(TALK_HEADER_BYTES + 2 * i, samples[i]);
  return out;
}

/** A float sample in [-1, 1] as signed 16-bit (clipped). */
export function toInt16(sample: number): number {
  const clipped = Math.max(-1, Math.min(1, sample));
  return clipped < 0 ? Math.round(clipped * 0x8000) : Math.round(clipped * 0x7fff);
}

/**
 * Resamples a stream of float blocks from `inputRate` to 8 kHz. Downsampling averages the input over
 * each output sample's span (a box low-pass: an 8 kHz voice band is all the terminal plays, and
 * 48 kHz picked every sixth sample would alias); upsampling interpolates linearly. State carries
 * across blocks, so block edges add no clicks and no drift.
 */
export class Resampler {
  private readonly step: number;
  /** Position of the next output sample in input samples, relative to the next block's start. */
  private position = 0;
  private history = new Float32Array(0);

  constructor(readonly inputRate: number, readonly outputRate: number = TALK_SAMPLE_RATE_HZ) {
    if (!(inputRate > 0) || !(outputRate > 0)) throw new RangeError('sample rates must be positive');
    this.step = inputRate / outputRate;
  }

  push(block: Float32Array): Float32Array {
    const keep = this.history.length;
    const all = new Float32Array(keep + block.length);
    all.set(this.history, 0);
    all.set(block, keep);
    const get = (i: number) => all[Math.min(all.length - 1, Math.max(0, i + keep))] ?? 0;
    const out: number[] = [];
    while (this.position <= block.length - 1) {
      const base = Math.floor(this.position);
      if (this.step > 1) {
        const from = Math.floor(this.position - this.step) + 1;
        let sum = 0;
        for (let i = from; i <= base; i += 1) sum += get(i);
        out.push(sum / (base - from + 1));
      } else {
        const frac = this.position - base;
        out.push(get(base) * (1 - frac) + get(base + 1) * frac);
      }
      this.position += this.step;
    }
    this.position -= block.length;
    const span = Math.ceil(this.step) + 1;
    this.history = all.slice(Math.max(0, all.length - span));
    return Float32Array.from(out);
  }
}

/**
 * Float blocks at any rate in, finished talk packets out: resample, convert to Int16, cut into
 * 320-sample frames, number them (wrapping after 65535) and stamp each with its ms since the start.
 */
export class TalkFramer {
  private readonly resampler: Resampler;
  private pending = new Int16Array(TALK_FRAME_SAMPLES);
  private filled = 0;
  seq: number;
  frames = 0;

  constructor(inputRate: number, private readonly sim: string, private readonly channel: number, firstSeq = 0) {
    this.resampler = new Resampler(inputRate);
    this.seq = firstSeq & 0xffff;
  }

  push(block: Float32Array): Uint8Array[] {
    const samples = this.resampler.push(block);
    const packets: Uint8Array[] = [];
    for (const sample of samples) {
      this.pending[this.filled] = toInt16(sample);
      this.filled += 1;
      if (this.filled === TALK_FRAME_SAMPLES) {
        const timestamp = (this.frames * TALK_FRAME_SAMPLES * 1000) / TALK_SAMPLE_RATE_HZ;
        packets.push(encodeTalkPacket(this.pending, this.seq, timestamp, this.sim, this.channel));
        this.seq = (this.seq + 1) & 0xffff;
        this.frames += 1;
        this.filled = 0;
        this.pending = new Int16Array(TALK_FRAME_SAMPLES);
      }
    }
    return packets;
  }
}
