/**
 * The one notification centre: every notice the console raises (command results, alarms, vehicle
 * states, terminal security) is kept here, newest first, and listed under the bell; on screen at
 * most MAX_TOASTS of them show at once (AppProviders' notification config), each closing itself after
 * a few seconds, so a burst never stacks over form fields and buttons. Pure store, no React.
 */
import type { ReactNode } from 'react';

export type NoticeLevel = 'info' | 'success' | 'warning' | 'error';

export interface CentreNotice {
  id: number;
  level: NoticeLevel;
  title: string;
  content: ReactNode;
  at: number;
}

/** Toasts on screen at once; the rest are only in the centre. */
export const MAX_TOASTS = 2;
/** Seconds a toast stays; an error or warning a little longer. */
export const TOAST_S: Record<NoticeLevel, number> = { info: 5, success: 5, warning: 8, error: 10 };
/** Notices the centre keeps. */
export const CENTRE_CAPACITY = 50;

type Listener = () => void;

export class NoticeCentre {
  private items: CentreNotice[] = [];
  private nextId = 1;
  private unread = 0;
  private readonly keys = new Map<number, string>();
  private readonly listeners = new Set<Listener>();

  constructor(private readonly capacity = CENTRE_CAPACITY) {}

  /** Keeps a notice (replacing the one with the same `key`, e.g. a vehicle's newer state) and returns its id. */
  add(notice: Omit<CentreNotice, 'id' | 'at'> & { at?: number }, key?: string): number {
    const id = this.nextId++;
    const entry: CentreNotice = { ...notice, id, at: notice.at ?? Date.now() };
    const rest = key === undefined ? this.items : this.items.filter((n) => this.keys.get(n.id) !== key);
    if (key !== undefined) this.keys.set(id, key);
    this.items = [entry, ...rest].slice(0, this.capacity);
    for (const id of this.keys.keys()) if (!this.items.some((n) => n.id === id)) this.keys.delete(id);
    this.unread = Math.min(this.unread + 1, this.items.length);
    this.emit();
    return id;
  }

  list(): readonly CentreNotice[] {
    return this.items;
  }

  unreadCount(): number {
    return this.unread;
  }

  markRead(): void {
    if (this.unread === 0) return;
    this.unread = 0;
    this.emit();
  }

  clear(): void {
    this.items = [];
    this.keys.clear();
    this.unread = 0;
    this.emit();
  }

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  /** A value that changes whenever the centre does (for useSyncExternalStore). */
  getSnapshot = (): readonly CentreNotice[] => this.items;

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The console's centre (one per page). */
export const noticeCentre = new NoticeCentre();
