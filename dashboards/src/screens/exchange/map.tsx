import ExchangeVehicleMap from '../../features/exchangeInferior/ExchangeVehicleMap';

/** Data exchange "map" (platform-spec §2): the exchange vehicles at their last reported position. */
export default function ExchangeMapScreen() {
  return <ExchangeVehicleMap />;
}
