import { Alert, Card, Empty, Menu, Space, Spin, Typography } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { listNotebooks, notebookPage, pickNotebook, type NotebookEntry, type NotebookPage } from '../../features/report/notebooks';

type Listing = { state: 'loading' } | { state: 'failed'; forbidden: boolean; message: string } | { state: 'ready'; entries: NotebookEntry[] };

/** The analyst notebooks as their executed pages (docs/reports.md §9): read with their charts, nothing to run.
 * A page is static HTML shown in a sandboxed frame (no script runs in it, it cannot reach the console). */
export default function NotebooksScreen() {
  const { t } = useTranslation('report');
  const [params, setParams] = useSearchParams();
  const [listing, setListing] = useState<Listing>({ state: 'loading' });
  const [loaded, setLoaded] = useState<{ name: string; page: NotebookPage | 'failed' }>();
  const entries = listing.state === 'ready' ? listing.entries : [];
  const selected = pickNotebook(entries, params.get('name'));
  const page = loaded && loaded.name === selected ? loaded.page : undefined;

  useEffect(() => {
    const abort = new AbortController();
    void listNotebooks(abort.signal).then((reply) => {
      if (abort.signal.aborted) return;
      setListing(reply.code === 0 ? { state: 'ready', entries: reply.data }
        : { state: 'failed', forbidden: reply.code === 403, message: reply.localMessage ?? reply.message });
    });
    return () => abort.abort();
  }, []);

  useEffect(() => {
    if (!selected) return undefined;
    const abort = new AbortController();
    void notebookPage(selected, abort.signal).then((reply) => {
      if (!abort.signal.aborted) setLoaded({ name: selected, page: reply.code === 0 ? reply.data : 'failed' });
    });
    return () => abort.abort();
  }, [selected]);

  if (listing.state === 'loading') return <Spin />;
  if (listing.state === 'failed') {
    return <Alert type={listing.forbidden ? 'info' : 'error'} showIcon data-testid="notebooks-unavailable"
      message={listing.forbidden ? t('notebooks.forbidden') : t('notebooks.loadFailed')}
      description={listing.forbidden ? undefined : listing.message} />;
  }
  const current = entries.find((e) => e.name === selected);
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Typography.Paragraph type="secondary">{t('notebooks.intro')} {t('notebooks.run')}</Typography.Paragraph>
      {entries.length === 0 ? <Empty description={t('notebooks.empty')} /> : (
        <div style={{ display: 'flex', gap: 16, flexWrap: 'wrap', alignItems: 'flex-start' }}>
          <Menu mode="inline" style={{ width: 240, flex: '0 0 auto' }} selectedKeys={selected ? [selected] : []}
            onClick={({ key }) => setParams({ name: key })} data-testid="notebook-list"
            items={entries.map((e) => ({ key: e.name, label: e.title, disabled: !e.renderedAt }))} />
          <Card style={{ flex: '1 1 480px', minWidth: 0 }} title={current?.title}
            extra={current?.renderedAt ? t('notebooks.renderedAt', { time: dayjs(current.renderedAt).format('YYYY-MM-DD HH:mm') })
              : t('notebooks.notRendered')}>
            {current?.error && <Alert type="warning" showIcon style={{ marginBottom: 12 }}
              message={t('notebooks.failed', { error: current.error })} />}
            {page === 'failed' && <Alert type="error" showIcon message={t('notebooks.loadFailed')} />}
            {page === undefined && selected && <Spin />}
            {page !== undefined && page !== 'failed' && (
              <iframe title={page.title} srcDoc={page.html} sandbox="" data-testid="notebook-page"
                style={{ width: '100%', height: '75vh', border: 0 }} />
            )}
          </Card>
        </div>
      )}
    </Space>
  );
}
