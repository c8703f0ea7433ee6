import FrameLogScreen from '../../features/messageLog/FrameLogScreen';

/** Upstream messages: what a vehicle's terminals sent, decoded and as hex. */
export default function UpstreamMessageScreen() {
  return <FrameLogScreen entity="upstreamMessage" strings="upstream" />;
}
