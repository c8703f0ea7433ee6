import { useEffect, useState } from 'react';
import { session } from '../auth/session';
import { afterFirstContent } from '../router/firstContent';
import { http } from './client';

/**
 * The console's system files (console-spec §3 "System file", §7 GET /api/common/systemFile/{name}.json):
 * files of the build that keep their name from build to build (the logo, the manuals; api/system_files.py
 * lists them). Each is asked for once per session (console-spec §3: system file paths are cached per
 * session) and linked as `path?t=modifyTime`, so a changed file is a new URL and an unchanged one stays in
 * the browser's cache.
 */
export interface SystemFile {
  name: string;
  path: string;
  /** Epoch ms of the file's last change. */
  modifyTime: number;
}

/** sessionStorage key of the answers of this session (dropped at logout, auth/session.ts). */
export const SYSTEM_FILES_KEY = 'fleetwatch.systemFiles';

export function systemFileUrl(file: Pick<SystemFile, 'path' | 'modifyTime'>): string {
  return `${file.path}${file.path.includes('?') ? '&' : '?'}t=${file.modifyTime}`;
}

function cached(): Record<string, SystemFile> {
  try {
    return JSON.parse(sessionStorage.getItem(SYSTEM_FILES_KEY) ?? '{}') as Record<string, SystemFile>;
  } catch {
    return {};
  }
}

function isSystemFile(data: unknown): data is SystemFile {
  const file = data as Partial<SystemFile> | null;
  return typeof file?.path === 'string' && file.path.startsWith('/') && Number.isFinite(file.modifyTime);
}

const asking = new Map<string, Promise<SystemFile | null>>();

/**
 * A system file by name: this session's answer, else the API's (one request however many ask at once).
 * Null before sign-in and when the API does not answer it (the caller keeps its plain link): quiet, a
 * missing logo or manual is no error to show.
 */
export function loadSystemFile(name: string): Promise<SystemFile | null> {
  const known = cached()[name];
  if (known) return Promise.resolve(known);
  if (!session.accessToken()) return Promise.resolve(null);
  let pending = asking.get(name);
  if (!pending) {
    pending = http
      .get<SystemFile>(`/api/common/systemFile/${encodeURIComponent(name)}.json`, { quiet: true })
      .then((reply) => {
        asking.delete(name);
        if (reply.code !== 0 || !isSystemFile(reply.data)) return null; // an answer of another shape: the plain link
        sessionStorage.setItem(SYSTEM_FILES_KEY, JSON.stringify({ ...cached(), [name]: reply.data }));
        return reply.data;
      });
    asking.set(name, pending);
  }
  return pending;
}

/**
 * The URL to link for system file `name` (`fallback` until it is known, and for a null name). This session's
 * answer is used at once; a file not yet asked for is asked after the opening page's first content
 * (router/firstContent.ts: the logo and the manuals' links never delay a report's first rows).
 */
export function useSystemFileUrl(name: string | null, fallback: string): string {
  const [url, setUrl] = useState<{ name: string | null; url: string } | null>(null);
  const known = name ? cached()[name] : undefined;
  useEffect(() => {
    if (!name || cached()[name]) return undefined;
    let live = true;
    const cancel = afterFirstContent(() => {
      void loadSystemFile(name).then((file) => {
        if (live && file) setUrl({ name, url: systemFileUrl(file) });
      });
    });
    return () => {
      live = false;
      cancel();
    };
  }, [name]);
  if (known) return systemFileUrl(known);
  return url && url.name === name ? url.url : fallback;
}
