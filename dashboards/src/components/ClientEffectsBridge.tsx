import { App } from 'antd';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { configureClientEffects } from '../api/effects';

/** Wires the API client's failure handler to antd notifications and the router once mounted. */
export default function ClientEffectsBridge() {
  const { notification } = App.useApp();
  const navigate = useNavigate();
  useEffect(
    () =>
      configureClientEffects({
        notifyError: (title, message) => notification.error({ title, description: message }),
        clearErrors: () => notification.destroy(),
        navigate: (to) => navigate(to, { replace: true }),
      }),
    [notification, navigate],
  );
  return null;
}
