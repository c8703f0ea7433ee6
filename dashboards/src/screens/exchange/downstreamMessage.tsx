import ExchangeLogScreen from '../../features/exchange/ExchangeLogScreen';

export const ENTITY = 'exchangeDownstreamMessage';

/** Data exchange "downstreamMessage": the JT/T 809 frames received from the superior platforms. */
export default function ExchangeDownstreamMessageScreen() {
  return <ExchangeLogScreen entity={ENTITY} strings="downstream" />;
}
