/**
 * The address of a point (contract D, cached per rounded coordinate in model/api), re-asked when the
 * point moves to another rounded coordinate; null while loading or unavailable (show coordinates).
 */
import { useEffect, useState } from 'react';
import { addressKey, fetchAddress } from '../model/api';

export function useAddress(lng: number | undefined, lat: number | undefined, enabled = true): string | null {
  const key = enabled && lng !== undefined && lat !== undefined ? addressKey(lng, lat) : null;
  const [result, setResult] = useState<{ key: string; address: string | null }>({ key: '', address: null });
  useEffect(() => {
    if (key === null || lng === undefined || lat === undefined) return undefined;
    let live = true;
    void fetchAddress(lng, lat).then((address) => {
      if (live) setResult({ key, address });
    });
    return () => {
      live = false;
    };
    // Only a new rounded coordinate asks again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return key !== null && result.key === key ? result.address : null;
}
