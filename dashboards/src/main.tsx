import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from './i18n';
import App from './App';
import { prefetchPage } from './router/prefetch';

prefetchPage(window.location.pathname);

// A language other than the bundled default is fetched before the first paint (no flash of Chinese).
void i18nReady.finally(() => {
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
