import type { ReactNode } from 'react';
import { useAccess } from './access';

interface Props {
  /** Permission code, e.g. "car". */
  code: string;
  /** Action, e.g. "edit". */
  action: string;
  children: ReactNode;
  fallback?: ReactNode;
}

/** Renders children only when the user holds the action on the code (the server checks anyway). */
export default function Access({ code, action, children, fallback = null }: Props) {
  const access = useAccess();
  return <>{access.can(code, action) ? children : fallback}</>;
}
