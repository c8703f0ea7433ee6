import { BrowserRouter } from 'react-router';
import TokenRefresher from './auth/TokenRefresher';
import AppProviders from './components/AppProviders';
import ClientEffectsBridge from './components/ClientEffectsBridge';
import { SettingsProvider } from './layouts/settings/SettingsContext';
import AppRoutes from './router/AppRoutes';

export default function App() {
  return (
    <SettingsProvider>
      <AppProviders>
        <BrowserRouter>
          <ClientEffectsBridge />
          <TokenRefresher />
          <AppRoutes />
        </BrowserRouter>
      </AppProviders>
    </SettingsProvider>
  );
}
