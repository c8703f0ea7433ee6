import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from './i18n';
import App from './App';
import { openFirstContent } from './router/firstContent';
import { openingPage } from './router/prefetch';

// An address with no page of its own shows no list rows: the shell's deferred calls go at once.
const opening = openingPage(window.location.pathname);
if (!opening) openFirstContent();

// A language other than the bundled default is fetched before the first paint (no flash of Chinese); the
// opening page's code (at most OPENING_PAGE_WAIT_MS) too, so its meta call leaves before the shell renders.
void Promise.allSettled([i18nReady, opening]).finally(() => {
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
