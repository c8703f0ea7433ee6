import FrameLogScreen from '../../features/messageLog/FrameLogScreen';

/** Issue 8 §4 upstream messages: what a vehicle's terminals sent, decoded and as hex. */
export default function UpstreamMessageScreen() {
  return <FrameLogScreen entity="upstreamMessage" strings="upstream" />;
}
