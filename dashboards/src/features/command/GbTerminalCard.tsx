import { App, Button, Card, Input, Select, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { sendCommand, waitForCommand, type CommandState } from './api';
import { answeredParams, GB_LINK_IDS, GB_SETTABLE, gbParamValue, type GbAnsweredParam } from './gbParams';

type Outcome = { kind: 'waiting' } | { kind: 'answered'; state: CommandState } | { kind: 'unanswered'; state: CommandState | null };

/**
 * A GB/T 32960 terminal's parameters and control on nevCarDetail (GB/T 32960.3-2016 §7.6-7.8, tables 24 and 27),
 * through the one command path: query (0x80, every table-24 id) shows the terminal's answered values, set (0x81)
 * one parameter, reset (0x82 command 3) after a confirmation. Each waits for the command's state (answered,
 * timed out, failed) like every command. Shown to a user holding `command:cmd` for a gb32960 master device.
 */
export function GbTerminalCard({ carId, deviceId, plate }: { carId: number; deviceId: number; plate: string }) {
  const { t } = useTranslation('command');
  const { modal, message } = App.useApp();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [values, setValues] = useState<GbAnsweredParam[]>([]);
  const [paramId, setParamId] = useState<string>(GB_SETTABLE[1].id);
  const [raw, setRaw] = useState('');
  const target = { carId, deviceId };

  const run = async (code: '8104' | '8103' | '8105', payload: Record<string, unknown>) => {
    setOutcome({ kind: 'waiting' });
    const reply = await sendCommand(target, code, payload);
    if (reply.code !== 0 || !reply.data) {
      setOutcome(null); // the client already showed the server's message (offline, refused value)
      return;
    }
    const state = await waitForCommand(reply.data.id);
    if (state && state.state === 'answered') {
      setOutcome({ kind: 'answered', state });
      if (code === '8104' && state.result === 0) setValues(answeredParams(state.reply));
    } else {
      setOutcome({ kind: 'unanswered', state });
    }
  };

  const value = gbParamValue(paramId, raw);
  const set = () => {
    if (value === null) {
      void message.error(t('gb.badValue'));
      return;
    }
    const confirm = GB_LINK_IDS.includes(paramId);
    void run('8103', confirm ? { paramList: [{ id: paramId, value }], confirm: true } : { paramList: [{ id: paramId, value }] });
  };
  const reset = () => {
    modal.confirm({
      title: t('gb.confirmReset', { plate }),
      okText: t('vehicleControl.ok'),
      cancelText: t('form.cancel'),
      okButtonProps: { 'data-testid': 'gb-reset-confirm' } as Record<string, string>,
      onOk: () => void run('8105', { command: 3 }),
    });
  };

  const waiting = outcome?.kind === 'waiting';
  let status: string | null = null;
  if (outcome?.kind === 'answered') status = outcome.state.result === 0 ? t('gb.succeeded') : t('gb.refused');
  else if (outcome?.kind === 'unanswered') status = outcome.state?.state === 'failed' ? t('gb.notDelivered') : t('gb.noAnswer');

  return (
    <Card size="small" title={t('gb.title')} data-testid="gb-terminal">
      <Space orientation="vertical" size={8} style={{ width: '100%' }}>
        <Space wrap>
          <Button onClick={() => void run('8104', {})} loading={waiting} data-testid="gb-query">{t('gb.query')}</Button>
          <Select
            style={{ width: 260 }}
            value={paramId}
            onChange={setParamId}
            options={GB_SETTABLE.map((p) => ({ value: p.id, label: `${p.id} ${t(`gb.param.${p.id}`)}` }))}
            data-testid="gb-param"
          />
          <Input style={{ width: 200 }} value={raw} onChange={(e) => setRaw(e.target.value)} placeholder={t('gb.value')}
            status={raw && value === null ? 'error' : undefined} data-testid="gb-value" />
          <Button onClick={set} disabled={waiting} data-testid="gb-set">{t('gb.set')}</Button>
          <Button danger onClick={reset} disabled={waiting} data-testid="gb-reset">{t('gb.reset')}</Button>
        </Space>
        {waiting ? <Typography.Text type="secondary" data-testid="gb-status" data-state="waiting">{t('gb.waiting')}</Typography.Text> : null}
        {status ? <Typography.Text data-testid="gb-status" data-state={outcome?.kind}>{status}</Typography.Text> : null}
        {values.length ? (
          <Table
            size="small"
            rowKey="id"
            pagination={false}
            dataSource={values}
            data-testid="gb-values"
            columns={[
              { title: t('gb.id'), dataIndex: 'id', width: 80 },
              { title: t('gb.name'), dataIndex: 'id', render: (id: string) => t(`gb.param.${id}`) },
              { title: t('gb.value'), dataIndex: 'value', render: (v: number | string) => <span data-testid="gb-param-value">{String(v)}</span> },
            ]}
          />
        ) : null}
      </Space>
    </Card>
  );
}
