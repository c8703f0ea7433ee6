import { importStatus, importTemplate, shownMessage, startImport, type ImportRowError, type ImportStatus } from './api';

/** An import as the dialog shows it: upload, then poll the job until it is done or failed. */
export type ImportJob =
  | { phase: 'idle' }
  | { phase: 'uploading' }
  | { phase: 'running' | 'done'; jobId: string; total: number; processed: number; created: number; failed: number; errors: ImportRowError[] }
  | { phase: 'failed'; message: string; errors: ImportRowError[] };

export type ImportEvent =
  | { type: 'upload' }
  | { type: 'started'; jobId: string; total: number }
  | { type: 'status'; status: ImportStatus }
  | { type: 'error'; message: string }
  | { type: 'reset' };

export const IDLE: ImportJob = { phase: 'idle' };

export function importReducer(job: ImportJob, event: ImportEvent): ImportJob {
  switch (event.type) {
    case 'reset':
      return IDLE;
    case 'upload':
      return { phase: 'uploading' };
    case 'started':
      return { phase: 'running', jobId: event.jobId, total: event.total, processed: 0, created: 0, failed: 0, errors: [] };
    case 'status': {
      if (job.phase !== 'running') return job; // a late answer after the dialog moved on
      const { status } = event;
      if (status.state === 'failed') return { phase: 'failed', message: shownMessage(status), errors: status.errors ?? [] };
      return {
        ...job,
        phase: status.state === 'done' ? 'done' : 'running',
        total: status.total,
        processed: status.processed,
        created: status.created,
        failed: status.failed,
        errors: status.errors ?? [],
      };
    }
    case 'error':
      return { phase: 'failed', message: event.message, errors: [] };
  }
}

/** The progress bar's percent: processed of total (100 when done, also for an empty file). */
export function importPercent(job: ImportJob): number {
  if (job.phase === 'done') return 100;
  if (job.phase !== 'running' || job.total <= 0) return 0;
  return Math.min(100, Math.floor((job.processed / job.total) * 100));
}

export const POLL_INTERVAL_MS = 1000;

export interface RunOptions {
  signal: AbortSignal;
  intervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Uploads the file and polls its job until done or failed, reporting each step to `dispatch`.
 * Request failures were already shown by the client's failure handler; they end the job as failed.
 * Aborting the signal (the dialog closed) stops the polling; the server's job goes on.
 */
export async function runImport(entity: string, file: File, dispatch: (event: ImportEvent) => void, options: RunOptions): Promise<void> {
  const { signal, intervalMs = POLL_INTERVAL_MS, sleep = defaultSleep } = options;
  dispatch({ type: 'upload' });
  const started = await startImport(entity, file);
  if (signal.aborted) return;
  if (started.code !== 0) {
    dispatch({ type: 'error', message: started.message });
    return;
  }
  dispatch({ type: 'started', jobId: started.data.jobId, total: started.data.total });
  for (;;) {
    const reply = await importStatus(entity, started.data.jobId, signal);
    if (signal.aborted) return;
    if (reply.code !== 0) {
      dispatch({ type: 'error', message: reply.message });
      return;
    }
    dispatch({ type: 'status', status: reply.data });
    if (reply.data.state !== 'running') return;
    await sleep(intervalMs);
    if (signal.aborted) return;
  }
}

/** What the import dialog runs: the upload (reporting each step to `dispatch`) and the template download. A
 * declared entity's import is the server's job (`entityImporter`); a screen with an import route of its own
 * (the fence bindings) gives its own. */
export interface Importer {
  run: (file: File, dispatch: (event: ImportEvent) => void, options: RunOptions) => Promise<void>;
  template: () => Promise<{ blob: Blob; fileName: string } | null>;
}

/** The generic import of a declared entity: the server's job, polled, and the server's template. */
export function entityImporter(entity: string): Importer {
  return {
    run: (file, dispatch, options) => runImport(entity, file, dispatch, options),
    template: () => importTemplate(entity),
  };
}
