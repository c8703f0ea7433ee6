/* global registerProcessor, AudioWorkletProcessor */
// The microphone's samples to the talk session (src/features/video/micCapture.ts), in blocks of 1024 (about 21 ms at
// 48 kHz): the main thread resamples them to 8 kHz and frames them (talkFrame.ts).
class TalkCapture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.block = new Float32Array(1024);
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) {
      for (let i = 0; i < channel.length; i += 1) {
        this.block[this.filled] = channel[i];
        this.filled += 1;
        if (this.filled === this.block.length) {
          this.port.postMessage(this.block);
          this.block = new Float32Array(1024);
          this.filled = 0;
        }
      }
    }
    return true;
  }
}

registerProcessor('fleet-talk-capture', TalkCapture);
