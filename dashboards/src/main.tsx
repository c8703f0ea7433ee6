import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from './i18n';
import App from './App';
import { openFirstContent } from './router/firstContent';
import { prefetchPage } from './router/prefetch';

// An address with no page of its own shows no list rows: the shell's deferred calls go at once.
if (!prefetchPage(window.location.pathname)) openFirstContent();

// A language other than the bundled default is fetched before the first paint (no flash of Chinese).
void i18nReady.finally(() => {
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
