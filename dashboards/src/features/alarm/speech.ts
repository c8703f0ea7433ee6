/** The spoken alert of an alarm notification (console-spec §6). */
/** Says `text` in `lang`; a short beep when the browser cannot speak. */
export function speak(text: string, lang: string): void {
  if (typeof window === 'undefined') return;
  if ('speechSynthesis' in window && typeof SpeechSynthesisUtterance !== 'undefined') {
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = lang;
    window.speechSynthesis.speak(utterance);
    return;
  }
  beep();
}

function beep(): void {
  const Context = (window as unknown as { AudioContext?: typeof AudioContext }).AudioContext;
  if (!Context) return;
  const context = new Context();
  const oscillator = context.createOscillator();
  oscillator.frequency.value = 880;
  oscillator.connect(context.destination);
  oscillator.start();
  oscillator.stop(context.currentTime + 0.3);
  oscillator.onended = () => void context.close();
}
