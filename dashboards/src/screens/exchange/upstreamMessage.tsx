import ExchangeLogScreen from '../../features/exchange/ExchangeLogScreen';

export const ENTITY = 'exchangeUpstreamMessage';

/** Data exchange "upstreamMessage": the JT/T 809 frames fleetwatch sent to its superior platforms. */
export default function ExchangeUpstreamMessageScreen() {
  return <ExchangeLogScreen entity={ENTITY} strings="upstream" />;
}
